// The answers a command takes as arguments instead of prompting (README: "Commands from
// other extensions / keybindings"). Callers are other extensions, keybindings and tests:
// every argument is validated here, and a bad one fails with a message naming it.
import * as vscode from "vscode";
import { z } from "zod";
import type { SessionTreeNode } from "../sessions/nodes";

/** Why a session title is refused (the rename input box and the `title` argument share it). */
export function titleProblem(value: string): string | undefined {
  return value.trim().length === 0
    ? "The title cannot be empty"
    : value.length > 500
      ? "At most 500 characters"
      : undefined;
}

/** Why an API key is refused (the input box and the `key` argument share it). Never echoes the key. */
export function keyProblem(value: string): string | undefined {
  return value.trim().length === 0 ? "The key cannot be empty" : undefined;
}

const checked = (problem: (v: string) => string | undefined) =>
  z.string().superRefine((v, ctx) => {
    const message = problem(v);
    if (message) ctx.addIssue({ code: "custom", message });
  });

/** A folder or file as a caller names it: a `Uri`, a URI string (`file:///…`), or an absolute path. */
const Location = z.union([z.custom<vscode.Uri>((v) => v instanceof vscode.Uri, "expected a Uri"), z.string().min(1)]);

export function toUri(location: vscode.Uri | string): vscode.Uri {
  if (typeof location !== "string") return location;
  return /^[a-z][a-z0-9+.-]+:/i.test(location) && !/^[a-z]:[\\/]/i.test(location)
    ? vscode.Uri.parse(location)
    : vscode.Uri.file(location);
}

/** A session named by a caller; `folderKey` is the chat's name for the folder's URI string. */
const SessionRefArg = z
  .object({
    folder: Location.optional(),
    folderKey: z.string().min(1).optional(),
    agentId: z.string().min(1),
    sessionId: z.string().min(1),
  })
  .strict()
  .refine(
    (r) => (r.folder === undefined) !== (r.folderKey === undefined),
    "name the session's folder with exactly one of folder, folderKey",
  );
export type SessionRefArg = z.infer<typeof SessionRefArg>;

const REF_KEYS = new Set(["folder", "folderKey", "agentId", "sessionId"]);

export const Answers = {
  none: z.object({}).strict(),
  rename: z.object({ title: checked(titleProblem).optional() }).strict(),
  fork: z
    .object({ whole: z.literal(true).optional(), atSeq: z.number().int().positive().optional() })
    .strict()
    .refine((a) => !(a.whole && a.atSeq !== undefined), "give whole or atSeq, not both"),
  delete: z.object({ confirmed: z.boolean().optional() }).strict(),
  export: z.object({ format: z.enum(["md", "jsonl"]).optional(), uri: Location.optional() }).strict(),
  newSession: z.object({ folder: Location.optional(), agentId: z.string().min(1).optional() }).strict(),
  setApiKey: z.object({ profileId: z.string().min(1).optional(), key: checked(keyProblem).optional() }).strict(),
  selectModel: z.object({ profileId: z.string().min(1).optional(), model: z.string().min(1).optional() }).strict(),
};

export class ArgumentError extends Error {}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
export const isTreeNode = (v: unknown): v is SessionTreeNode =>
  isRecord(v) && typeof v.kind === "string" && "entry" in v;

/** Parses `value` or throws an ArgumentError naming the bad argument (never its value: it may be a key). */
export function parseArgs<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  const message = issue.code === "unrecognized_keys" ? `unknown argument ${issue.keys.join(", ")}` : issue.message;
  throw new ArgumentError(`invalid arguments: ${where}${message}`);
}

/**
 * A session command's `(target?, answers?)`. The target is a tree row or a session ref;
 * the answers may also sit beside the ref in the first argument, because a keybinding's
 * `args` is one value: `{ folder, agentId, sessionId, title }`, or `{ title }` alone
 * (the session is then picked).
 */
export function sessionArgs<T>(
  schema: z.ZodType<T>,
  first: unknown,
  second?: unknown,
): { target: SessionTreeNode | SessionRefArg | undefined; answers: T } {
  // A tree menu may pass the selected rows as the second argument: they are not answers.
  if (Array.isArray(second)) second = undefined;
  if (second !== undefined && !isRecord(second))
    throw new ArgumentError("invalid arguments: the second argument must be an object of answers");
  if (first === undefined || first === null || isTreeNode(first))
    return { target: first ?? undefined, answers: parseArgs(schema, second) };
  if (!isRecord(first))
    throw new ArgumentError("invalid arguments: the first argument must be a session or an object of answers");
  const ref: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(first)) (REF_KEYS.has(key) ? ref : rest)[key] = value;
  const target = Object.keys(ref).length > 0 ? parseArgs(SessionRefArg, ref) : undefined;
  return { target, answers: parseArgs(schema, { ...rest, ...second }) };
}
