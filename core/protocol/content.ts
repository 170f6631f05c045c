import { z } from "zod";

/**
 * Where an attached block of context came from (an @-mention, a dropped file, Add to
 * Chat). Providers get only the block's text; the chat shows the attachment as a chip,
 * and the rules reader counts its `path` as touched. Optional, so older logs still parse.
 */
export const AttachmentKind = z.enum(["file", "folder", "problems", "selection", "terminal"]);
export const AttachmentInfo = z.object({
  kind: AttachmentKind,
  /** What the chip says: a path, `path:10-20`, "Problems", "Selection (app.ts:3-9)", "Terminal (bash)". */
  label: z.string().min(1).max(500),
  /** Workspace-relative path of a file or folder (or the selection's file). */
  path: z.string().min(1).max(4096).optional(),
  /** 1-based inclusive line range of a file mention or a selection. */
  range: z.object({ start: z.number().int().positive(), end: z.number().int().positive() }).optional(),
});

/** Content blocks of a provider-neutral message (DESIGN §6). */
export const TextBlock = z.object({ type: z.literal("text"), text: z.string(), attachment: AttachmentInfo.optional() });

/** Reasoning text. Provider signatures travel in the message's `replayState`, not here. */
export const ReasoningBlock = z.object({
  type: z.literal("reasoning"),
  text: z.string(),
  redacted: z.boolean().optional(),
});

export const ImageBlock = z.object({
  type: z.literal("image"),
  mediaType: z.string().min(1),
  /** base64, no data: prefix */
  data: z.string(),
});

/** A file the model produced or referenced (kept in order with the other parts of a draft). */
export const FileBlock = z.object({
  type: z.literal("file"),
  uri: z.string().min(1),
  mediaType: z.string().optional(),
  title: z.string().optional(),
});

export const ToolCallBlock = z.object({
  type: z.literal("tool-call"),
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
  /**
   * Set when the model's arguments were not a JSON object: `arguments` is then `{}` and
   * the tool must not run; the caller answers with an error result quoting `error`.
   */
  invalidArguments: z.object({ raw: z.string(), error: z.string() }).optional(),
  /** The provider's own id when it reused one already in the session and `id` was made unique. */
  providerId: z.string().min(1).optional(),
});

/** What a tool result may contain. */
export const ToolResultPart = z.discriminatedUnion("type", [TextBlock, ImageBlock]);

export const ToolResultBlock = z.object({
  type: z.literal("tool-result"),
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
  content: z.array(ToolResultPart),
  isError: z.boolean().optional(),
});

export const ContentBlock = z.discriminatedUnion("type", [
  TextBlock,
  ReasoningBlock,
  ImageBlock,
  FileBlock,
  ToolCallBlock,
  ToolResultBlock,
]);

export type AttachmentKind = z.infer<typeof AttachmentKind>;
export type AttachmentInfo = z.infer<typeof AttachmentInfo>;
export type TextBlock = z.infer<typeof TextBlock>;
export type ReasoningBlock = z.infer<typeof ReasoningBlock>;
export type ImageBlock = z.infer<typeof ImageBlock>;
export type FileBlock = z.infer<typeof FileBlock>;
export type ToolCallBlock = z.infer<typeof ToolCallBlock>;
export type ToolResultPart = z.infer<typeof ToolResultPart>;
export type ToolResultBlock = z.infer<typeof ToolResultBlock>;
export type ContentBlock = z.infer<typeof ContentBlock>;
