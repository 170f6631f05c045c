import { realpath, stat } from "node:fs/promises";
import { CliError } from "./output";

// Apart from workspace.ts (which opens the store): `sessions list` needs only this.
/** The workspace folder the CLI works on: realpath of --cwd (default: the current folder). */
export async function workspaceRoot(cwd: string | undefined): Promise<string> {
  const dir = cwd ?? process.cwd();
  try {
    const root = await realpath(dir);
    if (!(await stat(root)).isDirectory()) throw new Error("not a directory");
    return root;
  } catch (err) {
    throw new CliError(`--cwd ${dir}: ${(err as Error).message}`);
  }
}
