import { createHash } from "node:crypto";
import * as vscode from "vscode";
import { ToolError } from "../../core/tools/errors";
import { looksBinary } from "../../core/tools/text";

/** The open document for a file, if the editor has one (its text includes unsaved changes). */
export function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
}

/** Whether a workspace.fs error means "no such file". */
export function isNotFound(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  return code === "FileNotFound" || code === "ENOENT" || code === "EntryNotFound";
}

/**
 * The text the editor would show for a file: the open document's (unsaved changes
 * included), else the file read through `workspace.fs` (BOM dropped, as the editor does).
 * Undefined when the file does not exist.
 */
export async function editorText(uri: vscode.Uri, shown: string): Promise<string | undefined> {
  const doc = openDocument(uri);
  if (doc) return doc.getText();
  let bytes: Uint8Array;
  try {
    bytes = await vscode.workspace.fs.readFile(uri);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    if ((err as { code?: string }).code === "FileIsADirectory") throw new ToolError(`${shown} is a directory`);
    throw err;
  }
  if (looksBinary(bytes)) throw new ToolError(`${shown} is a binary file; the editor tools handle text files only`);
  return new TextDecoder("utf-8").decode(bytes);
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The disk side of a file's state: modification time and size, or undefined when it does not exist. */
export async function diskStamp(uri: vscode.Uri): Promise<string | undefined> {
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    return `${stat.mtime}:${stat.size}`;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The file's text on disk, ignoring any open buffer (BOM dropped); undefined when it does not exist. */
export async function diskText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder("utf-8").decode(await vscode.workspace.fs.readFile(uri)).replace(/^\uFEFF/, "");
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
