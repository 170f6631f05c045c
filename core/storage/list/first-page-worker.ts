import { realpathSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import type { SessionListItem } from "../../session";
import { createStorageContext } from "../context";
import { firstPage } from "./list-newest";

/** A first page as a worker thread can be asked for it: plain data, no callback crosses threads. */
export interface PageFilter {
  limit: number;
  archived?: boolean;
  verifyLogs?: boolean;
}

/** What the worker is started with: the folders to list and the pages each gets. */
export interface FirstPagesJob {
  roots: string[];
  filters: PageFilter[];
}

/** One message per root, in the order given: its real path and one page per filter, or why it could not be listed. */
export type FirstPagesAnswer =
  { root: string; real: string; pages: SessionListItem[][] } | { root: string; error: string };

/**
 * The worker's program (dist/first-page-worker.js; started by core/runtime/first-pages.ts): each root's first pages,
 * from the same `firstPage` a list with a limit runs on the host's thread, so both give the same rows.
 */
async function listFirstPages(job: FirstPagesJob, post: (answer: FirstPagesAnswer) => void): Promise<void> {
  for (const root of job.roots) {
    try {
      // The folder's registry keys its runtime by the real path: the page is used only where they agree.
      const real = realpathSync(root);
      const ctx = createStorageContext({ root: real });
      const pages: SessionListItem[][] = [];
      for (const { archived, verifyLogs, limit } of job.filters)
        pages.push(await firstPage(ctx, { archived: archived === true, verifyLogs: verifyLogs === true, limit }));
      post({ root, real, pages });
    } catch (error) {
      post({ root, error: error instanceof Error ? error.message : String(error) });
    }
  }
}

if (parentPort) void listFirstPages(workerData as FirstPagesJob, (answer) => parentPort!.postMessage(answer));
