/** A provider-neutral description of one scripted model response. */
export interface WireScript {
  id?: string;
  model?: string;
  reasoning?: string;
  text?: string;
  /** `arguments` as a string is sent verbatim (e.g. to script invalid JSON). */
  toolCalls?: { id: string; name: string; arguments: object | string }[];
  usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number; reasoning?: number };
  /** The provider's own finish/stop reason; default derived from the script. */
  finish?: string;
  /** Split text, reasoning and arguments into pieces of this many characters (default 4). */
  chunkSize?: number;
  /** Interleave argument deltas of parallel tool calls round-robin (default true). */
  interleave?: boolean;
  /** openai-chat: the field carrying reasoning (default reasoning_content, as DeepSeek). */
  reasoningField?: "reasoning_content" | "reasoning";
  /** anthropic: thinking signature; responses: reasoning encrypted_content. */
  signature?: string;
}

export function pieces(text: string, size = 4): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function argsText(args: object | string): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

/**
 * The order in which parallel tool calls emit: `[callIndex, pieceIndex]`, where piece -1
 * is the call's header. Round-robin when interleaved, else call after call.
 */
export function toolSchedule(calls: string[][], interleave: boolean): Array<[number, number]> {
  const order: Array<[number, number]> = [];
  if (!interleave) {
    calls.forEach((p, c) => {
      order.push([c, -1]);
      p.forEach((_, i) => order.push([c, i]));
    });
    return order;
  }
  const longest = Math.max(0, ...calls.map((p) => p.length));
  for (let i = -1; i < longest; i++) calls.forEach((p, c) => i < p.length && order.push([c, i]));
  return order;
}

export const sseData = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;
export const sseEvent = (event: string, value: unknown): string =>
  `event: ${event}\ndata: ${JSON.stringify(value)}\n\n`;
