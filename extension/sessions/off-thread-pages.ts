import { firstPagesAtScale } from "../../core/runtime/first-pages";
import type { OffThreadPages } from "./first-rows";

/** The worker's program, built beside the extension's bundle (esbuild.config.mjs) and shipped in the VSIX. */
export const FIRST_PAGE_WORKER = "first-page-worker.js";

/**
 * Live sessions from which a folder's first pages are listed on a worker thread. Below it the pass on the host's
 * thread is cheaper than starting a worker (about 50 ms and a fresh isolate's memory): 2,000 `lstat`s take ~15 ms.
 */
export const OFF_THREAD_MIN = 2_000;

/**
 * A folder's first pages on a worker thread running `script` (dist/first-page-worker.js), for a workspace's first
 * window at scale (issue 20): there the first page's 10,000 `lstat`s queued behind, and held up, the extension host's
 * start-up on its one thread. Nothing is started when the script is not there (the extension run from its sources)
 * or the folder (`root`, the registry's real path) holds fewer than `min` live sessions.
 */
export function offThreadPages(
  script: string,
  options: { min?: number; execArgv?: string[] } = {},
): (root: string) => OffThreadPages {
  return (root) => (filters) =>
    firstPagesAtScale(script, root, filters, { min: options.min ?? OFF_THREAD_MIN, execArgv: options.execArgv });
}
