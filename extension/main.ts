import { join } from "node:path";
import * as vscode from "vscode";
import { FirstPagePrefetch } from "./sessions/first-page-prefetch";

/**
 * The bundle's entry (dist/extension.js). Its first act, before the rest of the bundle is evaluated, is to start the
 * Sessions tree's first pages on a worker thread: what costs the host's thread (evaluating the bundle) and what costs
 * the disk (at 10,000 sessions, 10,000 `lstat`s) overlap instead of following each other (issue 20).
 */
const prefetch = new FirstPagePrefetch(
  join(__dirname, "first-page-worker.js"),
  vscode.workspace.workspaceFolders ?? [],
);

// Required, not imported: imports are evaluated before this module's body, and the prefetch must start first.
const extension = require("./activate") as typeof import("./activate");

export function activate(context: vscode.ExtensionContext): ReturnType<typeof extension.activate> {
  return extension.activate(context, prefetch);
}

export function deactivate(): Promise<void> {
  prefetch.end();
  return extension.deactivate();
}
