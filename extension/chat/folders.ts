import type {
  ConnectParams,
  ConnectResult,
  ListModelsParams,
  ListModelsResult,
  ModelChoice,
} from "../../core/protocol";
import type { WorkspaceRuntimeApi } from "../../core/runtime/types";

/** One workspace folder as the chat sees it. `key` is stable for the folder (its URI string). */
export interface ChatFolder {
  key: string;
  name: string;
  runtime: WorkspaceRuntimeApi;
}

export interface Disposable {
  dispose(): void;
}

/**
 * What the chat needs from the extension's runtime manager: the folders with their
 * runtimes, a change event, and the provider facts the view shows. Kept narrow so the
 * chat is tested without VS Code and the extension wires it with a few lines.
 */
export interface ChatFolders {
  folders(): readonly ChatFolder[];
  /**
   * Runs `open` for every folder now and for each folder that opens later, and disposes what it returned when the
   * folder goes (the folder registry keeps it in the folder's record: the chat's live state of that folder).
   */
  attach(open: (folder: ChatFolder) => Disposable): Disposable;
  /** False when no provider profile (nor the DOWNCITY_* environment) is configured. */
  providerConfigured(): boolean;
  /** The models the pickers offer (configured profiles and their listed models). */
  models(): Promise<readonly ModelChoice[]> | readonly ModelChoice[];
  /** The model new runs use when the view chose none. */
  defaultModel(folderKey: string): ModelChoice | undefined;
  /** Why nothing may run (Restricted Mode). */
  restricted(): string | undefined;
  /** Provider settings, secrets or trust changed: the views refresh their config. */
  onDidChangeConfig?(listener: () => void): Disposable;
  /** The connect form's host side (extension/config/connect.ts); absent where the host offers no form. */
  connection?: ChatConnection;
}

export interface ChatConnection {
  listModels(params: ListModelsParams): Promise<ListModelsResult>;
  connect(params: ConnectParams): Promise<ConnectResult>;
}
