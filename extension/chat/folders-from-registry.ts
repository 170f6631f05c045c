import * as vscode from "vscode";
import type { ModelChoice } from "../../core/protocol";
import type { ChatConnection, ChatFolders } from "./folders";
import type { ProviderConfig } from "../config/providers";
import type { FolderRegistry } from "../folders/registry";

/** The chat's narrow view of the folder runtimes and the provider settings. */
export function chatFoldersOf(
  runtimes: FolderRegistry,
  config: ProviderConfig,
  connection?: ChatConnection,
): ChatFolders {
  return {
    ...(connection ? { connection } : {}),
    folders: () => runtimes.all().map(({ folder, key, runtime }) => ({ key, name: folder.name, runtime })),
    attach: (open) =>
      runtimes.attach("chat", ({ folder, key, runtime }) => {
        const part = open({ key, name: folder.name, runtime });
        return new vscode.Disposable(() => part.dispose());
      }),
    providerConfigured: () => config.selection() !== undefined,
    models: async () =>
      (await config.choices()).map((c): ModelChoice => ({
        provider: c.id,
        model: c.model,
        ...(c.contextWindow !== undefined && { contextWindow: c.contextWindow }),
      })),
    defaultModel: () => config.selection(),
    restricted: () => runtimes.restricted(),
    onDidChangeConfig: (listener) =>
      vscode.Disposable.from(
        runtimes.onDidApplyConfig(() => listener()),
        vscode.workspace.onDidGrantWorkspaceTrust(() => listener()),
      ),
  };
}
