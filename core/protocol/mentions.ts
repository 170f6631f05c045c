import { z } from "zod";
import { AttachmentInfo } from "./content";

/**
 * @-mentions of the chat's composer (issue 25 item 3). The webview asks the host to
 * resolve a mention when it is picked, so the chip and the meter show what will be sent
 * before sending; the resolved text travels with the prompt and is stored as a text block
 * carrying its `AttachmentInfo` in the user message's event.
 */
const Path = z.string().min(1).max(4096);
const Line = z.number().int().positive();

export const Mention = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("file"), path: Path, range: z.object({ start: Line, end: Line }).optional() }).strict(),
  z.object({ kind: z.literal("folder"), path: z.string().max(4096) }).strict(),
  z.object({ kind: z.literal("problems") }).strict(),
  z.object({ kind: z.literal("selection") }).strict(),
  z.object({ kind: z.literal("terminal") }).strict(),
]);
export type Mention = z.infer<typeof Mention>;

/** The most text one attachment may carry (a file is cut with a marker before this). */
export const ATTACHMENT_MAX_CHARS = 256 * 1024;

export const ResolvedAttachment = z
  .object({ info: AttachmentInfo, text: z.string().max(ATTACHMENT_MAX_CHARS + 1024) })
  .strict();
export type ResolvedAttachment = z.infer<typeof ResolvedAttachment>;

/** A rough token figure for the meter before sending (the provider's real count comes with the next usage). */
export const estimateTokens = (chars: number) => Math.ceil(chars / 4);
