import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh real directory under the OS temp dir (realpath: symlinked /tmp is resolved), removed after the test. */
export function tempDir(t: { after(fn: () => unknown): void }, prefix = "downcity-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
