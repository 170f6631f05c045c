import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh real directory under the OS temp dir (realpath: symlinked /tmp is resolved), removed after the test. */
export function tempDir(t: { after(fn: () => unknown): void }, prefix = "downcity-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  // Retries: a file still being closed elsewhere makes one rm fail with ENOTEMPTY or EBUSY.
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }));
  return dir;
}

/** A workspace folder for one test (the agent and CLI tests share it). */
export function tempWorkspace(t: { after(fn: () => unknown): void }): string {
  return tempDir(t, "downcity-agent-");
}
