import * as vscode from "vscode";

/**
 * A URI from the workbench's drag data, as this extension host names the file. The drag
 * data is in the window's terms: in a remote window (code-server, SSH, WSL, a container) an
 * Explorer row is `vscode-remote://<authority>/<path>`, while this host, which runs on the
 * remote, sees the same file as `file:///<path>` (VS Code translates the URIs that cross its
 * API, not the strings in a webview's message). So a `vscode-remote` URI of this host's
 * remote (`remoteName` is the authority up to its `+`) is a file here; any other URI is kept
 * as it is, and the caller's inside-the-folder check decides.
 */
export function hostUri(raw: string, remoteName: string | undefined): vscode.Uri {
  const uri = vscode.Uri.parse(raw, true);
  if (uri.scheme !== "vscode-remote" || !remoteName) return uri;
  const ours = uri.authority === remoteName || uri.authority.startsWith(`${remoteName}+`);
  return ours ? uri.with({ scheme: "file", authority: "" }) : uri;
}
