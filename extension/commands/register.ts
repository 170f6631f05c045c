import * as vscode from "vscode";
import type { ProviderConfig } from "../config/providers";
import { modelCommands } from "./model-commands";
import { guarded } from "./errors";
import { sessionCommands, type SessionCommandDeps } from "./session-commands";

/** Every command of package.json's `contributes.commands` this feature owns, with the title errors name. */
export const COMMAND_TITLES = {
  "downcity.newSession": "New Session",
  "downcity.openSession": "Open Session",
  "downcity.renameSession": "Rename Session",
  "downcity.forkSession": "Fork Session",
  "downcity.archiveSession": "Archive Session",
  "downcity.unarchiveSession": "Unarchive Session",
  "downcity.deleteSession": "Delete Session",
  "downcity.exportSession": "Export Session",
  "downcity.compactSession": "Compact Now",
  "downcity.cancelRun": "Cancel Run",
  "downcity.setApiKey": "Set API Key",
  "downcity.selectModel": "Select Model",
  "downcity.showSessionFiles": "Show Session Files",
} as const;

/** Registers the palette and tree commands in one place. */
/** `showConnect` reveals the chat's connect form (Select Model's "Add a model…"). */
export function registerCommands(
  deps: SessionCommandDeps & { config: ProviderConfig; showConnect?: () => Promise<void> },
): vscode.Disposable {
  const s = sessionCommands(deps);
  const m = modelCommands(deps.config, deps.showConnect);
  const handlers: Record<keyof typeof COMMAND_TITLES, (...args: any[]) => Promise<unknown>> = {
    "downcity.newSession": s.newSession,
    "downcity.openSession": s.openSession,
    "downcity.renameSession": s.renameSession,
    "downcity.forkSession": s.forkSession,
    "downcity.archiveSession": s.archiveSession,
    "downcity.unarchiveSession": s.unarchiveSession,
    "downcity.deleteSession": s.deleteSession,
    "downcity.exportSession": s.exportSession,
    "downcity.compactSession": s.compactSession,
    "downcity.cancelRun": s.cancelRun,
    "downcity.setApiKey": m.setApiKey,
    "downcity.selectModel": m.selectModel,
    "downcity.showSessionFiles": s.showSessionFiles,
  };
  return vscode.Disposable.from(
    ...Object.entries(handlers).map(([id, fn]) =>
      vscode.commands.registerCommand(id, guarded(COMMAND_TITLES[id as keyof typeof COMMAND_TITLES], fn)),
    ),
  );
}
