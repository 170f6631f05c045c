import type { StreamChunk } from "../../protocol";
import { abortedError } from "../errors";

/** A protocol's wire-event → StreamChunk translator (one per response). */
export interface WireTranslator<E> {
  translate(event: E, out: StreamChunk[]): void;
  end(out: StreamChunk[]): void;
}

/**
 * Pumps an SDK stream through a translator. The SDKs end iteration quietly on abort;
 * that is turned into an `aborted` outcome, never a short answer.
 */
export async function* translateStream<E>(
  wire: AsyncIterable<E>,
  translator: WireTranslator<E>,
  signal: AbortSignal | undefined,
): AsyncIterable<StreamChunk> {
  const out: StreamChunk[] = [];
  for await (const event of wire) {
    translator.translate(event, out);
    for (const chunk of out) yield chunk;
    out.length = 0;
  }
  if (signal?.aborted) throw abortedError(signal.reason);
  translator.end(out);
  yield* out;
}
