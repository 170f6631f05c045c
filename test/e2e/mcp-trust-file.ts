// Where the extension keeps MCP consent in a code-server run: its storageUri for the opened folder,
// <user-data>/User/workspaceStorage/<id>/downcity.downcity-vscode/mcp-trust.json (code-server names
// the <id> folder by a hash and writes only the workspace's name beside it: the file's own entries
// say which folder they are for).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export interface TrustOnDisk {
  file: string;
  mode: number;
  doc: {
    consent: { folder: string; launch: string }[];
    always: { folder: string; server: string; tool?: string }[];
  };
}

/** Every MCP trust file of the run's workspace storage. */
export function trustFiles(userDataDir: string): TrustOnDisk[] {
  const root = join(userDataDir, "User", "workspaceStorage");
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((id) => join(root, id, "downcity.downcity-vscode", "mcp-trust.json"))
    .filter((file) => existsSync(file))
    .map((file) => ({ file, mode: statSync(file).mode & 0o777, doc: JSON.parse(readFileSync(file, "utf8")) }));
}
