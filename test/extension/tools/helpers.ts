import { mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { ToolRegistry } from "../../../core/tools/registry";
import type { ToolContext, ToolOutput } from "../../../core/tools/types";
import type { ApprovalDecision } from "../../../core/protocol";
import {
  createApprover,
  createEditorTools,
  EditReviews,
  PendingDecisions,
  type ApproverOptions,
  type DecisionKey,
  type EditorTools,
  type EditorToolsOptions,
} from "../../../extension/tools";
import { tempDir } from "../../support/temp";
import { installEditor, type FakeEditor } from "../../support/vscode-fake/editor";

export interface EditorWorkspace {
  root: string;
  outside: string;
  editor: FakeEditor;
  tools: EditorTools;
  registry: ToolRegistry;
  write(rel: string, content: string): string;
  ctx(extra?: Partial<ToolContext>): ToolContext;
  run(name: string, args: unknown, extra?: Partial<ToolContext>): Promise<ToolOutput>;
  /** The window's open decisions and edit reviews (their title-bar commands registered, as the extension does). */
  decisions: PendingDecisions;
  reviews: EditReviews;
  /** The key of a call's decision in this workspace (session "s1", agent "default"). */
  key(toolCallId: string): DecisionKey;
  /**
   * What the agent loop does for a call that needs approval: preview, ask the approver,
   * let `answer` act as the user (while the approval is open), then execute if approved.
   * Returns the decision and (when run) the output.
   */
  reviewed(
    name: string,
    args: unknown,
    options: ApproverOptions & {
      toolCallId?: string;
      signal?: AbortSignal;
      answer: (call: { toolCallId: string; key: DecisionKey }) => unknown;
    },
  ): Promise<{ approved: boolean; reason?: string; output?: ToolOutput }>;
  /** The chat card's answer. */
  card(toolCallId: string, decision: ApprovalDecision): boolean;
}

let calls = 0;

/** A real temp folder (and a sibling outside it) behind the fake editor, with the editor tools over it. */
export function editorWorkspace(
  t: { after(fn: () => unknown): void },
  options: Partial<EditorToolsOptions> = {},
): EditorWorkspace {
  const base = tempDir(t, "downcity-editor-tools-");
  const root = path.join(base, "ws");
  const outside = path.join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(path.join(outside, "secret.txt"), "outside\n");
  const editor = installEditor(root);
  const folder = vscode.workspace.workspaceFolders![0]!;
  const tools = createEditorTools({
    folder,
    root: realpathSync(root),
    diagnosticsWaitMs: 50,
    diagnosticsQuietMs: 10,
    appRoot: "",
    ...options,
  });
  t.after(async () => {
    await tools.dispose();
    editor.dispose();
  });
  const registry = new ToolRegistry(tools.tools);
  const decisions = new PendingDecisions();
  const reviews = new EditReviews();
  const registration = reviews.register();
  t.after(() => registration.dispose());
  const folderKey = folder.uri.toString();
  const key = (toolCallId: string): DecisionKey => ({ folderKey, agentId: "default", sessionId: "s1", toolCallId });
  const ctx = (extra: Partial<ToolContext> = {}): ToolContext => ({
    root,
    signal: new AbortController().signal,
    toolCallId: `call-${++calls}`,
    sessionId: "s1",
    agentId: "default",
    ...extra,
  });
  return {
    root,
    outside,
    editor,
    tools,
    registry,
    write(rel, content) {
      const file = path.join(root, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
      return file;
    },
    ctx,
    decisions,
    reviews,
    key,
    card: (toolCallId, decision) => decisions.answer(key(toolCallId), decision),
    run: (name, args, extra) => registry.run(name, args, ctx(extra)),
    async reviewed(name, args, options) {
      const { answer, toolCallId, signal, ...approverOptions } = options;
      const c = ctx({ ...(toolCallId ? { toolCallId } : {}), ...(signal ? { signal } : {}) });
      const parsed = registry.parse(name, args);
      if (!parsed.ok) throw new Error(parsed.error);
      const preview = await parsed.tool.preview?.(parsed.args, c);
      const approve = createApprover({ folderKey, proposals: tools.proposals, reviews, decisions, ...approverOptions });
      const asked = approve(
        {
          sessionId: "s1",
          agentId: "default",
          toolCallId: c.toolCallId!,
          toolName: name,
          kind: parsed.tool.kind,
          arguments: args as Record<string, unknown>,
          summary: parsed.tool.describe?.(parsed.args) ?? name,
          ...(preview ? { preview } : {}),
        },
        c.signal,
      );
      await answer({ toolCallId: c.toolCallId!, key: key(c.toolCallId!) });
      const decision = await asked;
      if (!decision.approved) return { approved: false, ...(decision.reason ? { reason: decision.reason } : {}) };
      return { approved: true, output: await registry.run(name, args, c) };
    },
  };
}

export function text(out: ToolOutput | undefined): string {
  return (out?.content ?? []).map((p) => (p.type === "text" ? p.text : "")).join("");
}

export function link(target: string, at: string): void {
  symlinkSync(target, at);
}

/** Live processes (zombies awaiting their reaper excluded) whose process group is `pgid`. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] !== "Z" && Number(fields[2]) === pgid) out.push(Number(name));
    } catch {
      /* exited while listing */
    }
  }
  return out;
}

/** Waits (bounded) until the group has no live member: the kernel reaps orphans asynchronously. */
export async function groupGone(pgid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (groupMembers(pgid).length === 0) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}
