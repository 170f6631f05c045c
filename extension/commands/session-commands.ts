// Over 350 lines: the Sessions view's palette commands, one short handler each, registered in one place, with the export and fork prompts they ask.
import * as vscode from "vscode";
import { compactedText, type SessionEvent, type UserMessageData } from "../../core/protocol";
import type { LocalSessionRef } from "../../core/protocol";
import type { TranscriptFormat } from "../../core/runtime";
import { RestrictedModeError } from "../../core/runtime/errors";
import type { CompactNowResult } from "../../core/runtime/types";
import type { OpenFolder, FolderRegistry } from "../folders/registry";
import { damagedFolderUri, isDamagedFolderNode, type DamagedFolderNode } from "../sessions/damaged";
import { sessionLabel } from "../sessions/items";
import type { SessionNode } from "../sessions/nodes";
import type { SessionsTree } from "../sessions/tree";
import { Answers, isTreeNode, parseArgs, sessionArgs, titleProblem, toUri } from "./arguments";
import { folderEntry, refOf, resolveSession, type SessionArg } from "./target";

export interface SessionCommandDeps {
  runtimes: FolderRegistry;
  tree: SessionsTree;
  /** Shows the session in the chat (the chat feature supplies it). */
  openInChat: (folder: vscode.WorkspaceFolder, ref: LocalSessionRef) => Promise<void>;
  /** Where repair reports are written for the user to read. */
  output: vscode.OutputChannel;
}

/** A session as the commands that make one return it: usable as the target of any other command. */
export interface CommandSessionRef {
  folder: string;
  agentId: string;
  sessionId: string;
}

/** Sessions longer than this get a progress notification for fork. */
const LONG_SESSION_BYTES = 1 << 20;

/**
 * The session-level commands, each usable from a tree row, the chat, or the palette (then a
 * quick pick). Each takes `(target?, answers?)` (see arguments.ts): an answer given skips
 * its prompt; what is missing is asked as from the palette.
 */
export function sessionCommands(deps: SessionCommandDeps) {
  const { runtimes, tree, openInChat, output } = deps;
  const pick = (arg: SessionArg, placeHolder: string, filter: { archived?: boolean; running?: boolean } = {}) =>
    resolveSession(arg, tree, runtimes, filter, placeHolder);

  const pickFolder = async (arg: unknown, folder: vscode.Uri | string | undefined): Promise<OpenFolder | undefined> => {
    if (folder !== undefined) return folderEntry(runtimes, folder);
    if (isTreeNode(arg)) return runtimes.get(arg.entry.folder);
    const all = runtimes.all();
    if (all.length <= 1) {
      if (all.length === 0) void vscode.window.showInformationMessage("Downcity: open a folder to start a session.");
      return all[0];
    }
    const chosen = await vscode.window.showQuickPick(
      all.map((entry) => ({ label: entry.folder.name, description: entry.runtime.root, entry })),
      { placeHolder: "Workspace folder for the new session" },
    );
    return chosen?.entry;
  };

  const openAndNotify = async (node: SessionNode) => {
    const { runtime, folder } = node.entry;
    const { report } = await runtime.open(refOf(node));
    if (report.repaired || report.readOnly) {
      output.appendLine(
        `[${new Date().toISOString()}] ${folder.name} / ${sessionLabel(node)} (${node.item.sessionId})`,
      );
      for (const action of report.actions) output.appendLine(`  repaired: ${action}`);
      if (report.readOnly) output.appendLine(`  read-only: ${report.readOnly}`);
    }
    if (report.readOnly?.includes("damaged")) {
      const choice = await vscode.window.showWarningMessage(
        `Downcity: "${sessionLabel(node)}" is damaged and opens read-only; nothing was changed on disk. ${report.readOnly}`,
        "Show Repair Report",
        "Show Session Files",
      );
      if (choice === "Show Repair Report") output.show(true);
      if (choice === "Show Session Files") await vscode.commands.executeCommand("downcity.showSessionFiles", node);
    } else if (report.readOnly) {
      void vscode.window.showInformationMessage(
        `Downcity: "${sessionLabel(node)}" opens read-only (${report.readOnly}); it follows that writer's changes.`,
      );
    } else if (report.repaired) {
      void vscode.window.showInformationMessage(
        `Downcity: "${sessionLabel(node)}" was recovered (${report.actions.length} repair${report.actions.length === 1 ? "" : "s"}; see the Downcity output).`,
      );
    }
    await openInChat(folder, refOf(node));
  };

  /** A row of the "Damaged" group: named by its folder (it is no session), deleted only after asking. */
  const deleteDamaged = async (node: DamagedFolderNode, answers: { confirmed?: boolean }) => {
    const { runtime, folder } = node.entry;
    if (!runtime.deleteDamaged) throw new Error("this folder's store cannot delete damaged folders");
    const confirmed =
      answers.confirmed === true ||
      (await vscode.window.showWarningMessage(
        `Delete the damaged folder "${node.folder.folder}"?`,
        {
          modal: true,
          detail: `It is not a session (${node.folder.reason}). The folder and everything in it are removed from ${folder.name}/.downcity. This cannot be undone.`,
        },
        "Delete",
      )) === "Delete";
    if (!confirmed) return;
    await runtime.deleteDamaged(node.folder);
    tree.forgetDamaged(node);
  };

  return {
    async newSession(arg?: unknown): Promise<CommandSessionRef | undefined> {
      const answers = parseArgs(Answers.newSession, isTreeNode(arg) ? undefined : arg);
      const entry = await pickFolder(arg, answers.folder);
      if (!entry) return undefined;
      const { runtime, folder } = entry;
      let agentId = answers.agentId ?? (isTreeNode(arg) && arg.kind === "agent" ? arg.agentId : undefined);
      if (agentId && !runtime.agents.some((a) => a.id === agentId)) {
        throw new Error(
          `no agent "${agentId}" in ${folder.name} (agents: ${runtime.agents.map((a) => a.id).join(", ")})`,
        );
      }
      if (!agentId) {
        if (runtime.agents.length > 1) {
          const chosen = await vscode.window.showQuickPick(
            runtime.agents.map((a) => ({ label: a.name, description: a.id, detail: a.instructions, id: a.id })),
            { placeHolder: "Agent for the new session" },
          );
          if (!chosen) return undefined;
          agentId = chosen.id;
        } else agentId = runtime.agents[0]?.id;
      }
      const session = runtime.create(agentId);
      await openInChat(folder, { agentId: session.agentId, sessionId: session.id });
      return { folder: folder.uri.toString(), agentId: session.agentId, sessionId: session.id };
    },

    async openSession(arg?: unknown, more?: unknown) {
      const { target } = sessionArgs(Answers.none, arg, more);
      const node = await pick(target, "Open a session");
      if (node) await openAndNotify(node);
    },

    async renameSession(arg?: unknown, more?: unknown) {
      const { target, answers } = sessionArgs(Answers.rename, arg, more);
      const node = await pick(target, "Rename a session", { archived: false });
      if (!node) return;
      const title =
        answers.title ??
        (await vscode.window.showInputBox({
          prompt: "New title (pins it: automatic titles stop)",
          value: node.item.title ?? "",
          validateInput: titleProblem,
        }));
      if (title === undefined) return;
      await node.entry.runtime.rename(refOf(node), title.trim());
    },

    async forkSession(arg?: unknown, more?: unknown): Promise<CommandSessionRef | undefined> {
      const { target, answers } = sessionArgs(Answers.fork, arg, more);
      const node = await pick(target, "Fork a session");
      if (!node) return undefined;
      const ref = refOf(node);
      const { runtime, folder } = node.entry;
      let atSeq = answers.atSeq;
      if (atSeq === undefined && !answers.whole) {
        const chosen = await askForkPoint(node);
        if (!chosen) return undefined;
        atSeq = chosen.atSeq;
      }
      const fork = () => runtime.fork(ref, atSeq === undefined ? {} : { atSeq });
      const item =
        node.item.historyBytes > LONG_SESSION_BYTES
          ? await vscode.window.withProgress(
              { location: vscode.ProgressLocation.Notification, title: `Downcity: forking "${sessionLabel(node)}"` },
              fork,
            )
          : await fork();
      await openInChat(folder, { agentId: item.agentId, sessionId: item.sessionId });
      void vscode.window.showInformationMessage(
        `Downcity: forked "${sessionLabel(node)}" as "${item.title ?? "a new session"}"; it is open in the chat.`,
      );
      return { folder: folder.uri.toString(), agentId: item.agentId, sessionId: item.sessionId };
    },

    async archiveSession(arg?: unknown, more?: unknown) {
      const { target } = sessionArgs(Answers.none, arg, more);
      const node = await pick(target, "Archive a session", { archived: false });
      if (node) await node.entry.runtime.archive(refOf(node));
    },

    async unarchiveSession(arg?: unknown, more?: unknown) {
      const { target } = sessionArgs(Answers.none, arg, more);
      const node = await pick(target, "Unarchive a session", { archived: true });
      if (node) await node.entry.runtime.unarchive(refOf(node));
    },

    async deleteSession(arg?: unknown, more?: unknown) {
      if (isDamagedFolderNode(arg)) return deleteDamaged(arg, parseArgs(Answers.delete, more));
      // A target alone (a tree row, a ref) still asks: only an explicit `confirmed: true` skips the dialog.
      const { target, answers } = sessionArgs(Answers.delete, arg, more);
      const node = await pick(target, "Delete a session");
      if (!node) return;
      const confirmed =
        answers.confirmed === true ||
        (await vscode.window.showWarningMessage(
          `Delete "${sessionLabel(node)}"?`,
          {
            modal: true,
            detail: `Its ${node.item.messageCount} messages are removed from ${node.entry.folder.name}/.downcity. This cannot be undone.`,
          },
          "Delete",
        )) === "Delete";
      if (confirmed) await node.entry.runtime.delete(refOf(node));
    },

    async exportSession(arg?: unknown, more?: unknown): Promise<vscode.Uri | undefined> {
      const { target: given, answers } = sessionArgs(Answers.export, arg, more);
      const node = await pick(given, "Export a session");
      if (!node) return undefined;
      const uri = answers.uri === undefined ? undefined : toUri(answers.uri);
      const format = answers.format ?? (uri && formatOfPath(uri.path)) ?? (await askFormat());
      if (!format) return undefined;
      const target = uri ?? (await askExportTarget(node, format));
      if (!target) return undefined;
      const ref = refOf(node);
      await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Downcity: exporting "${sessionLabel(node)}"`,
          cancellable: true,
        },
        async (_p, token) => {
          const text = await node.entry.runtime.exportTranscript(ref, format, {
            ...(node.item.title !== undefined && { title: node.item.title }),
            signal: abortOn(token),
          });
          await vscode.workspace.fs.writeFile(target, Buffer.from(text, "utf8"));
        },
      );
      void vscode.window.showInformationMessage(
        `Downcity: exported "${sessionLabel(node)}" to ${target.scheme === "file" ? target.fsPath : target.toString()}.`,
      );
      return target;
    },

    async compactSession(arg?: unknown, more?: unknown): Promise<CompactNowResult | undefined> {
      const { target } = sessionArgs(Answers.none, arg, more);
      const node = await pick(target, "Compact a session now", { archived: false });
      if (!node) return undefined;
      const restricted = runtimes.restricted();
      if (restricted) throw new RestrictedModeError(restricted);
      const result = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Downcity: compacting "${sessionLabel(node)}"`,
          cancellable: true,
        },
        (_p, token) => node.entry.runtime.compactNow(refOf(node), { signal: abortOn(token) }),
      );
      void vscode.window.showInformationMessage(
        `Downcity: "${sessionLabel(node)}": ${compactedText(result.closed)}${result.note ? ` (${result.note})` : ""}.`,
      );
      return result;
    },

    async cancelRun(arg?: unknown, more?: unknown) {
      const { target } = sessionArgs(Answers.none, arg, more);
      const node = await pick(target, "Cancel the run of a session", { running: true });
      if (node) node.entry.runtime.cancel(refOf(node));
    },

    async showSessionFiles(arg?: unknown, more?: unknown): Promise<vscode.Uri | undefined> {
      if (isDamagedFolderNode(arg)) {
        const dir = damagedFolderUri(arg);
        await vscode.commands.executeCommand("revealInExplorer", dir);
        return dir;
      }
      const { target } = sessionArgs(Answers.none, arg, more);
      const node = await pick(target, "Show the files of a session");
      if (!node) return undefined;
      const dir = vscode.Uri.file(node.entry.runtime.sessionDir(refOf(node), { archived: node.item.archived }));
      try {
        await vscode.workspace.fs.stat(dir);
      } catch {
        void vscode.window.showInformationMessage(
          `Downcity: "${sessionLabel(node)}" has no files yet (a session is written at its first message).`,
        );
        return undefined;
      }
      await vscode.commands.executeCommand("revealInExplorer", dir);
      return dir;
    },
  };
}

const formatOfPath = (path: string): TranscriptFormat | undefined =>
  /\.jsonl$/i.test(path) ? "jsonl" : /\.(md|markdown)$/i.test(path) ? "md" : undefined;

async function askFormat(): Promise<TranscriptFormat | undefined> {
  const chosen = await vscode.window.showQuickPick(
    [
      { label: "Markdown", description: ".md", detail: "A readable transcript", format: "md" as TranscriptFormat },
      {
        label: "JSONL",
        description: ".jsonl",
        detail: "Every event, one JSON object per line",
        format: "jsonl" as TranscriptFormat,
      },
    ],
    { placeHolder: "Export format" },
  );
  return chosen?.format;
}

function askExportTarget(node: SessionNode, format: TranscriptFormat): Thenable<vscode.Uri | undefined> {
  const name = `${
    (node.item.title ?? node.item.sessionId)
      .replace(/[^\p{L}\p{N}_ -]+/gu, "")
      .trim()
      .replace(/\s+/g, "-")
      .slice(0, 80) || "session"
  }.${format}`;
  return vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.joinPath(node.entry.folder.uri, name),
    filters: format === "md" ? { Markdown: ["md"] } : { "JSON Lines": ["jsonl"] },
    title: "Export Session",
  });
}

/** Palette: fork the whole session, or before a chosen user message. Undefined when the user backs out. */
async function askForkPoint(node: SessionNode): Promise<{ atSeq?: number } | undefined> {
  const how = await vscode.window.showQuickPick(
    [
      { label: "Whole session", detail: "Copy every message into a new session", whole: true },
      {
        label: "From a user message…",
        detail: "Copy the history before a message you choose, to continue differently",
        whole: false,
      },
    ],
    { placeHolder: `Fork "${sessionLabel(node)}"` },
  );
  if (!how) return undefined;
  if (how.whole) return {};
  const events = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "Downcity: reading the history", cancellable: true },
    (_p, token) => node.entry.runtime.history(refOf(node), { signal: abortOn(token) }),
  );
  const picks = userMessages(events);
  if (picks.length === 0) {
    // Only the first user message (nothing precedes it): an empty pick would just look broken.
    void vscode.window.showInformationMessage(
      `Downcity: "${sessionLabel(node)}" has no user message with history before it to fork from; fork the whole session instead.`,
    );
    return undefined;
  }
  const chosen = await vscode.window.showQuickPick(picks, {
    placeHolder: "Fork before which message?",
    matchOnDetail: true,
  });
  return chosen && { atSeq: chosen.atSeq };
}

function abortOn(token: vscode.CancellationToken): AbortSignal {
  const controller = new AbortController();
  token.onCancellationRequested(() => controller.abort(new vscode.CancellationError()));
  return controller.signal;
}

/** The user's messages, newest first, each with the seq to fork through (everything before its turn). */
function userMessages(events: readonly SessionEvent[]): (vscode.QuickPickItem & { atSeq: number })[] {
  const picks: (vscode.QuickPickItem & { atSeq: number })[] = [];
  events.forEach((event, i) => {
    if (event.type !== "user/message") return;
    const data = event.data as UserMessageData;
    if (data.origin && data.origin !== "human") return;
    const previous = events[i - 1];
    const atSeq = previous?.type === "turn/start" ? previous.seq - 1 : event.seq - 1;
    if (atSeq < 1) return;
    const text = data.content
      .map((b) => (b.type === "text" ? b.text : ""))
      .join(" ")
      .replace(/\s+/g, " ")
      .trim();
    picks.push({
      label: text.slice(0, 120) || "(no text)",
      description: `#${event.seq}`,
      detail: new Date(event.time).toLocaleString(),
      atSeq,
    });
  });
  return picks.reverse();
}
