import { realpathSync } from "node:fs";

/** The workspace root's real path (paths in checkpoints are relative to it, as the sandbox resolves them). */
export function realRoot(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root;
  }
}
