import type { ContentBlock, ToolCallBlock } from "../core/protocol";
import type { Conversation, Item, ToolState, ToolStatus } from "./conversation";

/** What a tool card shows, derived from its call and state: the card renders exactly this. */
export interface ToolView {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  status: ToolStatus;
  edit?: { path: string; added: number; removed: number; diff: string };
  command?: { command: string; cwd: string };
  /** How a command ended besides its status: "exit code 2", "killed (SIGTERM)", "timed out". */
  exit?: string;
  /** The approval question, while it is pending. */
  approval?: string;
  decision?: string;
  message?: string;
  output?: string;
  /** An applied edit the card offers to undo (one step). */
  undo?: true;
  /** The file an undone edit put back (a `tool/undo` in the log). */
  undone?: string;
}

const EDIT_TOOLS = new Set(["edit_file", "write_file"]);

export function toolView(call: ToolCallBlock, state: ToolState | undefined): ToolView {
  const status = state?.status ?? "called";
  const edit =
    state?.details?.kind === "edit" ? state.details : state?.preview?.kind === "edit" ? state.preview : undefined;
  const command =
    state?.details?.kind === "command" ? state.details : state?.preview?.kind === "command" ? state.preview : undefined;
  // Images are drawn under the card (views/tool-images.ts), not named in its text.
  const resultText =
    state?.result
      ?.filter((p) => p.type === "text")
      .map((p) => p.text)
      .join("\n") ?? "";
  const output = state?.output || resultText;
  const view: ToolView = { id: call.id, name: call.name, arguments: call.arguments, status };
  if (edit) view.edit = { path: edit.path, added: edit.added, removed: edit.removed, diff: edit.diff };
  if (command) view.command = { command: command.command, cwd: command.cwd };
  const exit = state?.details?.kind === "command" ? exitText(state.details) : undefined;
  if (exit) view.exit = exit;
  if (status === "approval") view.approval = state?.approvalSummary ?? `Run ${call.name}?`;
  if (state?.decision) view.decision = state.decision;
  if (state?.message) view.message = state.message;
  if (output) view.output = output;
  if (state?.undone) view.undone = state.undone;
  else if (status === "done" && state?.details?.kind === "edit" && EDIT_TOOLS.has(call.name)) view.undo = true;
  return view;
}

function exitText(d: {
  exitCode?: number | null | undefined;
  signal?: string | null | undefined;
  timedOut?: boolean | undefined;
}): string | undefined {
  if (d.timedOut) return "timed out";
  if (d.signal) return `killed (${d.signal})`;
  if (d.exitCode !== undefined && d.exitCode !== null && d.exitCode !== 0) return `exit code ${d.exitCode}`;
  return undefined;
}

type RenderedBlock = Exclude<ContentBlock, ToolCallBlock> | { type: "tool-call"; tool: ToolView };
type Rendered<T> = T extends unknown
  ? Omit<T, "key" | "blocks"> & ("blocks" extends keyof T ? { blocks: RenderedBlock[] } : { blocks?: undefined })
  : never;
export type RenderedItem = Rendered<Item>;

/**
 * The chat's rendered model: every row as the view draws it (tool cards resolved to what
 * they show), without the list's keys. Live, reopened, reloaded and recovered chats of
 * one log compare equal through this.
 */
export function renderedModel(conversation: Conversation): { title?: string; items: RenderedItem[] } {
  const items = conversation.items.map((item): RenderedItem => {
    const { key: _key, ...rest } = item;
    if (!("blocks" in rest)) return rest;
    const blocks = rest.blocks.map((b): RenderedBlock =>
      b.type === "tool-call" ? { type: "tool-call", tool: toolView(b, conversation.tools.get(b.id)) } : b,
    );
    return { ...rest, blocks } as RenderedItem;
  });
  return { ...(conversation.title ? { title: conversation.title } : {}), items };
}
