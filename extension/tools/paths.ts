import * as vscode from "vscode";
import { SandboxError } from "../../core/tools/errors";
import { displayPath, resolveInsideRoot } from "../../core/tools/sandbox";

/** `scheme:` at the start of a path argument; a single letter is a Windows drive, not a scheme. */
const URI_SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]+):/;

export interface ToolPath {
  /** Real path inside the root (symlinks resolved), the path every operation uses. */
  abs: string;
  uri: vscode.Uri;
  /** Workspace-relative, `/`-separated. */
  shown: string;
}

/**
 * The core sandbox rule for an editor-backed tool's path argument, plus one more: the
 * argument is a workspace path, never a URI (`untitled:`, `vscode-remote://`, `file://`),
 * since a URI could name a document or file system outside the folder.
 */
export async function resolveToolPath(root: string, arg: string, forWrite: boolean): Promise<ToolPath> {
  refuseUri(arg);
  const abs = await resolveInsideRoot(root, arg, { forWrite });
  return { abs, uri: vscode.Uri.file(abs), shown: displayPath(root, abs) };
}

export function refuseUri(arg: string): void {
  const scheme = URI_SCHEME.exec(arg)?.[1];
  if (scheme !== undefined) {
    throw new SandboxError(`'${arg}' is a ${scheme}: URI; tools take paths relative to the workspace folder, not URIs`);
  }
}

/** A URI's workspace-relative path, or undefined when it is not a file inside the root. */
export function relativeToRoot(root: string, uri: vscode.Uri): string | undefined {
  if (uri.scheme !== "file") return undefined;
  const rel = displayPath(root, uri.fsPath);
  return rel === ".." || rel.startsWith("../") || /^[a-zA-Z]:|^\//.test(rel) ? undefined : rel;
}
