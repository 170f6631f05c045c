import * as vscode from "vscode";
import { SessionRef } from "../../core/protocol";
import type { WorkspaceRuntimeApi } from "../../core/runtime";
import { guarded } from "../commands/errors";
import { CHECKPOINT_SCHEME, CheckpointDocuments } from "./checkpoint-documents";
import { RESTORE_COMMAND, restoreToMessage, UNDO_RESTORE_COMMAND, undoRestore, type RestoreDeps } from "./flow";
import { pickMessage } from "./message-pick";

export interface RestoreRegistration {
  runtime(folderKey: string): WorkspaceRuntimeApi;
  /** The session the chat shows: the palette commands act on it. */
  shown(): SessionRef | undefined;
}

/**
 * "Restore to Here" (`downcity.restoreToMessage`: from a chat message with its session
 * and seq, or from the palette on the shown session's messages) and "Undo Restore"
 * (`downcity.undoRestore`), with the checkpoint documents their diffs show.
 */
export function registerRestore(host: RestoreRegistration): vscode.Disposable {
  const docs = new CheckpointDocuments();
  const deps: RestoreDeps = { runtime: (key) => host.runtime(key), docs };
  const target = (arg: unknown): SessionRef => {
    const parsed = SessionRef.safeParse(arg);
    if (parsed.success) return parsed.data;
    const shown = host.shown();
    if (!shown) throw new Error("open a session in the Downcity chat first");
    return shown;
  };
  return vscode.Disposable.from(
    vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, docs),
    vscode.commands.registerCommand(
      RESTORE_COMMAND,
      guarded("Restore to Here", async (arg?: unknown, seq?: unknown, mode?: unknown) => {
        const ref = target(arg);
        const messageSeq =
          typeof seq === "number" && Number.isSafeInteger(seq) && seq > 0
            ? seq
            : await pickMessage(host.runtime(ref.folderKey), ref);
        if (messageSeq === undefined) return undefined;
        return restoreToMessage(deps, ref, messageSeq, mode === "resend" ? "resend" : "restore");
      }),
    ),
    vscode.commands.registerCommand(
      UNDO_RESTORE_COMMAND,
      guarded("Undo Restore", async (arg?: unknown) => undoRestore(deps, target(arg))),
    ),
  );
}
