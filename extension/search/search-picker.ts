import * as vscode from "vscode";
import type { SearchHit, WorkspaceRuntimeApi } from "../../core/runtime/types";
import { relativeTime } from "../sessions/format";

/** One workspace folder the picker searches. */
export interface SearchFolder {
  folder: vscode.WorkspaceFolder;
  runtime: Pick<WorkspaceRuntimeApi, "search">;
}

export interface SearchPickerOptions {
  folders(): readonly SearchFolder[];
  /** Opens the hit's session in the chat at its message, highlighted. */
  reveal(folder: vscode.WorkspaceFolder, hit: SearchHit, query: string): Promise<void>;
  /** Quiet time after a keystroke before the query runs. */
  debounceMs?: number;
  now?: () => number;
}

export interface HitItem extends vscode.QuickPickItem {
  hit?: SearchHit;
  folder?: vscode.WorkspaceFolder;
}

/** Rows shown at most; hits per session (the picker finds sessions; the chat's find bar finds the rest). */
const LIMIT = 100;
const PER_SESSION = 5;
/** Rows are pushed to the picker at the first hit, then every this many (one render per batch, not per hit). */
const BATCH = 25;

/**
 * Label, description and detail of a QuickPick render `$(name)` as an icon. Hit text is
 * model output: every `$(` is escaped, so it shows as typed (the picker shows no markdown).
 */
export function inert(text: string): string {
  return text.replace(/\$\(/g, "\\$(");
}

const KIND_ICON: Record<SearchHit["kind"], string> = {
  user: "account",
  assistant: "sparkle",
  tool: "tools",
  title: "tag",
};
const KIND_NAME: Record<SearchHit["kind"], string> = {
  user: "You",
  assistant: "Assistant",
  tool: "Tool",
  title: "Title",
};

/** Whether the matched text is only in history: compacted into a closed segment, or folded off the model's context. */
export const onlyInHistory = (hit: SearchHit) => !hit.inContext;

/** One result row: title; agent, folder, time (and "closed history"); the snippet, whose match the picker highlights. */
export function hitItem(hit: SearchHit, folder: vscode.WorkspaceFolder, now: number): HitItem {
  const closed = onlyInHistory(hit);
  const where = [
    hit.agentId,
    folder.name,
    relativeTime(hit.time, now),
    ...(closed ? ["only in closed history"] : []),
    ...(hit.archived ? ["archived"] : []),
  ];
  return {
    label: inert(hit.title ?? "Untitled session"),
    iconPath: new vscode.ThemeIcon(closed ? "history" : KIND_ICON[hit.kind]),
    description: inert(where.join(" · ")),
    detail: inert(`${KIND_NAME[hit.kind]}: ${hit.snippet}`),
    // The runtime found it; the picker's own filter must not hide it (a regex, a match outside the snippet).
    alwaysShow: true,
    hit,
    folder,
  };
}

/**
 * "Downcity: Search Sessions…": a QuickPick with live results as the user types. Each
 * keystroke cancels the running query (its AbortSignal) and, after a quiet time, starts
 * the next over every folder; rows arrive in batches as hits stream in. Choosing one
 * opens its session in the chat at that message.
 */
export function searchSessionsPicker(options: SearchPickerOptions): Promise<void> {
  const debounceMs = options.debounceMs ?? 150;
  const now = options.now ?? Date.now;
  const pick = vscode.window.createQuickPick<HitItem>();
  pick.title = "Search Sessions";
  pick.placeholder = "Search every session: messages, tool calls and results, titles";
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  const toggles = { word: false, regex: false };
  const buttons = () => [
    {
      iconPath: new vscode.ThemeIcon("whole-word"),
      tooltip: `Match Whole Word (${toggles.word ? "on" : "off"})`,
      toggle: "word" as const,
    },
    {
      iconPath: new vscode.ThemeIcon("regex"),
      tooltip: `Use Regular Expression (${toggles.regex ? "on" : "off"})`,
      toggle: "regex" as const,
    },
  ];
  pick.buttons = buttons();

  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: AbortController | undefined;

  const run = async (query: string) => {
    running?.abort();
    const controller = new AbortController();
    running = controller;
    if (!query.trim()) {
      pick.items = [];
      pick.busy = false;
      return;
    }
    pick.busy = true;
    const items: HitItem[] = [];
    let shown = 0;
    const flush = () => {
      if (controller.signal.aborted) return;
      shown = items.length;
      pick.items = items.slice();
    };
    try {
      for (const { folder, runtime } of options.folders()) {
        if (items.length >= LIMIT || controller.signal.aborted) break;
        const found = runtime.search({
          query,
          ...(toggles.word && { word: true }),
          ...(toggles.regex && { regex: true }),
          limit: LIMIT - items.length,
          perSession: PER_SESSION,
          signal: controller.signal,
        });
        for await (const hit of found) {
          items.push(hitItem(hit, folder, now()));
          if (shown === 0 || items.length - shown >= BATCH) flush();
        }
      }
      if (controller.signal.aborted) return;
      flush();
      if (!items.length)
        pick.items = [{ label: "No session mentions this", description: inert(query), alwaysShow: true }];
    } catch (error) {
      if (controller.signal.aborted) return;
      // A bad query (invalid regex) gets its message as the only row, in place of results.
      const message = error instanceof Error ? error.message : String(error);
      pick.items = [{ label: inert(message), iconPath: new vscode.ThemeIcon("error"), alwaysShow: true }];
    } finally {
      if (running === controller) pick.busy = false;
    }
  };

  const schedule = () => {
    if (timer) clearTimeout(timer);
    // The running query is stale as soon as the text changes.
    running?.abort();
    timer = setTimeout(() => {
      timer = undefined;
      void run(pick.value);
    }, debounceMs);
  };

  return new Promise<void>((resolve) => {
    const subscriptions = [
      pick.onDidChangeValue(schedule),
      pick.onDidTriggerButton((button) => {
        const toggle = (button as { toggle?: "word" | "regex" }).toggle;
        if (!toggle) return;
        toggles[toggle] = !toggles[toggle];
        pick.buttons = buttons();
        schedule();
      }),
      pick.onDidAccept(() => {
        const chosen = pick.selectedItems[0] ?? pick.activeItems[0];
        if (!chosen?.hit || !chosen.folder) return;
        const query = pick.value;
        pick.hide();
        void options.reveal(chosen.folder, chosen.hit, query).catch((error: unknown) => {
          void vscode.window.showErrorMessage(
            `Downcity: Search Sessions failed: ${error instanceof Error ? error.message : String(error)}`,
          );
        });
      }),
      pick.onDidHide(() => {
        if (timer) clearTimeout(timer);
        running?.abort();
        subscriptions.forEach((s) => s.dispose());
        pick.dispose();
        resolve();
      }),
    ];
    pick.show();
  });
}
