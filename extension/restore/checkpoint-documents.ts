import * as vscode from "vscode";

export const CHECKPOINT_SCHEME = "downcity-checkpoint";

/** Read-only documents of a file's content at a restore point (the preview's diff sides). */
export class CheckpointDocuments implements vscode.TextDocumentContentProvider {
  private readonly docs = new Map<string, string>();
  private next = 0;

  put(path: string, bytes: Buffer | null, label: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${this.next++}/${path}`, query: label });
    this.docs.set(uri.toString(), bytes === null ? "" : bytes.toString("utf8"));
    // Bounded: only the last diffs opened stay readable.
    if (this.docs.size > 200) this.docs.delete(this.docs.keys().next().value!);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString()) ?? "";
  }
}
