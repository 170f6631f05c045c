import * as vscode from "vscode";
import type { SessionRef } from "../../core/protocol";
import type { WorkspaceRuntimeApi } from "../../core/runtime";

const textOf = (data: unknown): string =>
  ((data as { content?: { type: string; text?: string }[] } | undefined)?.content ?? [])
    .map((b) =>
      b.type === "text" ? (b.text ?? "") : b.type === "tool-call" ? `[${(b as { name?: string }).name ?? "tool"}]` : "",
    )
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();

/** The palette's "Restore to Here": which message of the shown session (newest first). */
export async function pickMessage(runtime: WorkspaceRuntimeApi, ref: SessionRef): Promise<number | undefined> {
  const page = await runtime.messages({ agentId: ref.agentId, sessionId: ref.sessionId });
  const items = page.events
    .filter((e) => e.type === "user/message" || e.type === "assistant/message")
    .filter(
      (e) =>
        (e.data as { origin?: string }).origin !== "checkpoint" && (e.data as { origin?: string }).origin !== "system",
    )
    .reverse()
    .map((e) => ({
      label: `${e.type === "user/message" ? "$(account) You" : "$(sparkle) Assistant"}: ${textOf(e.data).slice(0, 120) || "(no text)"}`,
      description: new Date(e.time).toLocaleString(),
      seq: e.seq,
    }));
  if (items.length === 0) throw new Error("the session has no message to restore to");
  const chosen = await vscode.window.showQuickPick(items, {
    title: "Restore to Here",
    placeHolder: "The message to put the files back to",
  });
  return chosen?.seq;
}
