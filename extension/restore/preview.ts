import { join } from "node:path";
import * as vscode from "vscode";
import type { ConflictChoice, RestoreFilePlan, RestorePreview, RestoreScope } from "../../core/runtime";
import type { CheckpointDocuments } from "./checkpoint-documents";

export interface PreviewAnswer {
  scope: RestoreScope;
  choices: Record<string, ConflictChoice>;
}

type Row = vscode.QuickPickItem & { action: "confirm" | "scope" | "file"; file?: RestoreFilePlan };

const DIFF = { iconPath: new vscode.ThemeIcon("diff"), tooltip: "Open Diff" };
const MINE = { iconPath: new vscode.ThemeIcon("account"), tooltip: "Keep Mine" };
const THEIRS = { iconPath: new vscode.ThemeIcon("history"), tooltip: "Take Checkpoint" };

const statusText = (f: RestoreFilePlan, choice: ConflictChoice | undefined): string => {
  if (f.status === "restore")
    return f.target.kind === "absent"
      ? "will be deleted"
      : f.current.kind === "absent"
        ? "will be recreated"
        : "will be restored";
  if (f.status === "not-restorable") return "not restorable";
  return choice === "mine"
    ? "conflict: keep mine"
    : choice === "checkpoint"
      ? "conflict: take checkpoint"
      : "conflict: choose Keep Mine or Take Checkpoint";
};

/**
 * The preview of a restore, before anything is written: every file that would change
 * (its diff now ↔ checkpoint in VS Code's diff editor, from its row or its button), each
 * conflict with its choice (Keep Mine / Take Checkpoint buttons), the scope (files, or
 * files and conversation), and Confirm Restore. Resolves with the answer, or undefined
 * when dismissed.
 */
export function showRestorePreview(
  plan: RestorePreview,
  options: { title: string; root: string; docs: CheckpointDocuments; scope: RestoreScope; scopeFixed?: boolean },
): Promise<PreviewAnswer | undefined> {
  const pick = vscode.window.createQuickPick<Row>();
  const choices: Record<string, ConflictChoice> = {};
  let scope = options.scope;
  pick.title = options.title;
  pick.placeholder = "Open a file's diff, choose for each conflict, then Confirm Restore";
  pick.ignoreFocusOut = true;
  pick.matchOnDescription = true;

  const changing = plan.files.filter((f) => f.status !== "not-restorable").length;
  const rows = (): Row[] => {
    const out: Row[] = [
      {
        action: "confirm",
        label: "$(check) Confirm Restore",
        description: `${changing} file${changing === 1 ? "" : "s"}${scope === "files+conversation" ? ", and the conversation in a fork" : ""}`,
        alwaysShow: true,
      },
    ];
    if (!options.scopeFixed) {
      out.push({
        action: "scope",
        label: scope === "files" ? "$(files) Scope: Files Only" : "$(comment-discussion) Scope: Files and Conversation",
        description: "select to change",
        alwaysShow: true,
      });
    }
    out.push({ action: "file", label: "Files", kind: vscode.QuickPickItemKind.Separator });
    if (plan.files.length === 0)
      out.push({ action: "file", label: "$(pass) No file changes: every file is as it was at that message" });
    for (const f of plan.files) {
      const row: Row = {
        action: "file",
        file: f,
        label: `${f.status === "conflict" ? "$(warning)" : f.status === "not-restorable" ? "$(circle-slash)" : "$(file)"} ${f.path}`,
        description: statusText(f, choices[f.path]),
      };
      if (f.reason) row.detail = f.reason;
      if (f.status !== "not-restorable") row.buttons = f.status === "conflict" ? [DIFF, MINE, THEIRS] : [DIFF];
      out.push(row);
    }
    return out;
  };
  const refresh = () => {
    const active = pick.activeItems[0];
    pick.items = rows();
    const same = active && pick.items.find((r) => r.action === active.action && r.file?.path === active.file?.path);
    if (same) pick.activeItems = [same];
  };
  refresh();

  const openDiff = async (f: RestoreFilePlan) => {
    const content = plan.bytes.get(f.path);
    if (!content) return;
    const now =
      content.now === null
        ? options.docs.put(f.path, null, "now (no file)")
        : vscode.Uri.file(join(options.root, f.path));
    const then = options.docs.put(f.path, content.target, "checkpoint");
    await vscode.commands.executeCommand("vscode.diff", now, then, `${f.path} (now ↔ checkpoint)`, {
      preview: true,
      preserveFocus: true,
    });
  };

  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: PreviewAnswer | undefined) => {
      if (settled) return;
      settled = true;
      resolve(answer);
      pick.dispose();
    };
    pick.onDidTriggerItemButton(({ item, button }) => {
      if (!item.file) return;
      if (button === DIFF) void openDiff(item.file);
      else {
        choices[item.file.path] = button === MINE ? "mine" : "checkpoint";
        refresh();
      }
    });
    pick.onDidAccept(() => {
      const row = pick.selectedItems[0] ?? pick.activeItems[0];
      if (!row) return;
      if (row.action === "scope") {
        scope = scope === "files" ? "files+conversation" : "files";
        refresh();
      } else if (row.action === "file" && row.file) void openDiff(row.file);
      else if (row.action === "confirm") {
        const open = plan.files.filter((f) => f.status === "conflict" && !choices[f.path]).map((f) => f.path);
        if (open.length > 0) {
          pick.title = `Choose Keep Mine or Take Checkpoint for: ${open.join(", ")}`;
          return;
        }
        finish({ scope, choices: { ...choices } });
      }
    });
    pick.onDidHide(() => finish(undefined));
    pick.show();
  });
}
