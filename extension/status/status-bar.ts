import * as vscode from "vscode";
import { contextShare, contextTokens, type AgentEventOf } from "../../core/protocol";
import type { OpenFolder, FolderRegistry } from "../folders/registry";
import type { ProviderConfig } from "../config/providers";

/**
 * The status-bar item: the model new runs use and the real context use of the active
 * session (from its last provider usage, never an estimate). Click: the model picker.
 */
export class ModelStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("downcity.model", vscode.StatusBarAlignment.Right, 100);
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly offs = new Map<OpenFolder, () => void>();
  private active: { root: string; agentId: string; sessionId: string } | undefined;
  private usage: AgentEventOf<"usage"> | undefined;

  constructor(
    private readonly config: ProviderConfig,
    runtimes: FolderRegistry,
  ) {
    this.item.name = "Downcity Model";
    this.item.command = "downcity.selectModel";
    const watch = (entry: OpenFolder) =>
      this.offs.set(
        entry,
        entry.runtime.onEvent((e) => e.type === "usage" && this.onUsage(entry, e)),
      );
    runtimes.all().forEach(watch);
    this.subscriptions.push(
      config.onDidChange(() => this.render()),
      runtimes.onDidChange(({ added, removed }) => {
        removed.forEach((entry) => {
          this.offs.get(entry)?.();
          this.offs.delete(entry);
        });
        added.forEach(watch);
      }),
    );
    this.render();
    this.item.show();
  }

  /** The session the chat shows; its usage is what the item reports. */
  setActive(root: string, ref: { agentId?: string; sessionId: string }): void {
    const next = { root, agentId: ref.agentId ?? "code", sessionId: ref.sessionId };
    if (
      this.active?.root === next.root &&
      this.active.agentId === next.agentId &&
      this.active.sessionId === next.sessionId
    )
      return;
    this.active = next;
    this.usage = undefined;
    this.render();
  }

  private onUsage(entry: OpenFolder, event: AgentEventOf<"usage">): void {
    // The session that last used the model becomes the active one when the chat named none.
    this.active ??= { root: entry.runtime.root, agentId: event.agentId, sessionId: event.sessionId };
    if (
      this.active.root !== entry.runtime.root ||
      this.active.agentId !== event.agentId ||
      this.active.sessionId !== event.sessionId
    )
      return;
    this.usage = event;
    this.render();
  }

  get text(): string {
    return this.item.text;
  }

  private render(): void {
    const selection = this.config.selection();
    if (!selection) {
      this.item.text = "$(hubot) Downcity: no model";
      this.item.tooltip = "No model provider is configured. Click to select one.";
      return;
    }
    let text = `$(hubot) ${selection.model}`;
    let tooltip = `Downcity: ${selection.provider} · ${selection.model} (click to change)`;
    const usage = this.usage;
    if (usage) {
      // The chat's meter shows the same figure: the selected model's window when settings name one (issue 20 item 5).
      const share = contextShare(usage.usage, selection.contextWindow ?? usage.contextWindow);
      if (share) text += ` · ${Math.round(share.ratio * 100)}%`;
      const used = share?.used ?? contextTokens(usage.usage);
      tooltip += `\nContext of this session: ${used.toLocaleString("en-US")}${share ? ` of ${share.window.toLocaleString("en-US")}` : ""} tokens (last request)`;
      if (usage.windowAssumed && !selection.contextWindow)
        tooltip += `\nThe model's context window is unknown, so ${share?.window.toLocaleString("en-US")} tokens is assumed.`;
    }
    this.item.text = text;
    this.item.tooltip = tooltip;
  }

  dispose(): void {
    this.subscriptions.forEach((d) => d.dispose());
    this.offs.forEach((off) => off());
    this.item.dispose();
  }
}
