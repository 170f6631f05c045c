import type * as vscode from "vscode";
import type { LocalSessionRef } from "../core/protocol";
import type { RuntimeFactory } from "../core/runtime";
import type { FolderHooks } from "./folders/registry";

/**
 * What unit tests and benches put in place of the extension's own parts before they call activate(). VS Code never
 * sets any: activate() takes the context alone, and every seam unset means the product's own part.
 */
export interface Seams {
  /** Makes each folder's runtime (tests count or wrap them; the product uses createWorkspaceRuntime). */
  factory?: RuntimeFactory;
  /** Each folder's tools (tests give Node tools; the product gives the editor-backed ones). */
  tools?: FolderHooks["tools"];
  /** The environment the DOWNCITY_* profile is read from (the product reads process.env). */
  env?: NodeJS.ProcessEnv;
  /** The Sessions tree's coalescing window (benchmarks measure every event on its own). */
  coalesceMs?: number;
  /** Shows a session instead of the sidebar chat (tests record it; the fake has no webview to show it in). */
  openInChat?: (folder: vscode.WorkspaceFolder, ref: LocalSessionRef) => Promise<void>;
  /**
   * Makes the rest (extension/features.ts) at once instead of after the tree's first draw: the fake
   * workbench draws nothing, so activate() would wait FIRST_DRAW_ASK_MS. Tests of that wait leave it unset.
   */
  restAtOnce?: boolean;
}

let installed: Seams = {};

/** Sets the seams the next activate() uses, until deactivate(). */
export function useSeams(seams: Seams): void {
  installed = seams;
}

/** The seams activate() uses (read once, at activation). */
export function currentSeams(): Seams {
  return installed;
}

/** deactivate() drops them: the next activation starts from the product's own parts. */
export function clearSeams(): void {
  installed = {};
}
