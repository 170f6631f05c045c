import { z } from "zod";
import { ContentBlock } from "../../protocol";

/** assistant_message.json: the complete draft of the assistant message being streamed. */
export const StoredDraft = z.looseObject({
  draftId: z.string().min(1),
  blocks: z.array(ContentBlock),
  provider: z.string().optional(),
  model: z.string().optional(),
  /** Becomes the recovered event's time: the same rule as every event's. */
  time: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  /** Last seq of the log when the draft was written. */
  afterSeq: z.number().int().nonnegative(),
});
export type StoredDraft = z.infer<typeof StoredDraft>;

export function parseDraft(data: Buffer): StoredDraft | string {
  let value: unknown;
  try {
    value = JSON.parse(data.toString("utf8"));
  } catch {
    return `draft is not JSON (${data.length} bytes)`;
  }
  const parsed = StoredDraft.safeParse(value);
  if (!parsed.success) return `draft is malformed: ${parsed.error.issues[0]?.message ?? "invalid"}`;
  return parsed.data;
}
