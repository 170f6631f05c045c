import { join } from "node:path";

import { CHECKPOINTS_DIR } from "../storage/layout";

/** `<session folder>/checkpoints/`: blobs and the private git objects of one session (DESIGN §4). */

export function checkpointPaths(sessionDir: string): { dir: string; gitObjects: string } {
  const dir = join(sessionDir, CHECKPOINTS_DIR);
  return { dir, gitObjects: join(dir, "git", "objects") };
}
