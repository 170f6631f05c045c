import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { SessionListItem } from "../session";
import type { FirstPagesAnswer, PageFilter } from "../storage/list/first-page-worker";
import { holdsAtLeast } from "../storage/list/session-dirs";
import { hop } from "../util/hop-trace";

export type { PageFilter };

/** A folder's first pages listed off the host's thread: the folder's real path and one page per filter. */
export interface FolderPages {
  real: string;
  pages: SessionListItem[][];
}

/** The worker's answers, one promise per root it was given. */
export interface FirstPagesOffThread {
  /** The root's pages (rejects when the worker could not list it); undefined for a root it was not given. */
  pages(root: string): Promise<FolderPages> | undefined;
  /** Stops the worker if it is still listing: the roots it has not answered reject. */
  stop(): void;
}

/**
 * Starts the first pages of `roots` on a worker thread running `script` (dist/first-page-worker.js, or the .ts
 * source under tsx with `execArgv`). At 10,000 sessions a first page is 10,000 `lstat`s; on the extension host's
 * one thread they wait behind, and hold up, the host's own start-up (issue 20), and a host can start this before it
 * has even finished loading. Any failure (no worker, a crash, a stop) rejects: the caller lists on its thread then.
 */
export function listFirstPagesOffThread(
  script: string,
  roots: readonly string[],
  filters: readonly PageFilter[],
  options: { execArgv?: string[] } = {},
): FirstPagesOffThread {
  const waiting = new Map<string, { resolve: (pages: FolderPages) => void; reject: (error: Error) => void }>();
  const promises = new Map<string, Promise<FolderPages>>();
  for (const root of roots) {
    if (promises.has(root)) continue;
    const promise = new Promise<FolderPages>((resolve, reject) => waiting.set(root, { resolve, reject }));
    promise.catch(() => {}); // a root nobody asks for may reject unseen
    promises.set(root, promise);
  }
  const failAll = (why: string) => {
    for (const { reject } of waiting.values()) reject(new Error(`listing sessions off the host's thread: ${why}`));
    waiting.clear();
  };
  let worker: Worker | undefined;
  if (waiting.size > 0) {
    try {
      worker = new Worker(script, {
        workerData: { roots: [...waiting.keys()], filters: filters.map((f) => ({ ...f })) },
        execArgv: options.execArgv ?? [],
      });
      hop("first pages off thread started");
      worker.unref(); // never what keeps a CLI or a test process alive
      worker.on("message", (answer: FirstPagesAnswer) => {
        const wait = waiting.get(answer.root);
        if (!wait) return;
        waiting.delete(answer.root);
        if ("error" in answer) wait.reject(new Error(`listing sessions off the host's thread: ${answer.error}`));
        else if (!Array.isArray(answer.pages) || answer.pages.length !== filters.length)
          wait.reject(new Error("listing sessions off the host's thread: a malformed answer"));
        else (hop("first pages off thread in"), wait.resolve({ real: answer.real, pages: answer.pages }));
        if (waiting.size === 0) void worker?.terminate();
      });
      worker.on("error", (error) => failAll(error.message));
      worker.on("exit", (code) => failAll(`the worker stopped (exit code ${code})`));
    } catch (error) {
      failAll(error instanceof Error ? error.message : String(error));
    }
  }
  return {
    pages: (root) => promises.get(root),
    stop: () => {
      if (waiting.size === 0) return;
      failAll("stopped");
      void worker?.terminate();
    },
  };
}

/**
 * `root`'s first pages on a worker thread running `script`, when it holds at least `min` live sessions (counted
 * without listing: session-dirs.ts holdsAtLeast) and the script is there; otherwise undefined, and the caller lists
 * on its thread. The pages are given only when the worker listed `root` itself (a real path, as a folder's runtime has).
 */
export function firstPagesAtScale(
  script: string,
  root: string,
  filters: readonly PageFilter[],
  options: { min: number; execArgv?: string[] | undefined },
): Promise<SessionListItem[][]> | undefined {
  if (!existsSync(script) || !holdsAtLeast(root, options.min)) return undefined;
  const started = listFirstPagesOffThread(script, [root], filters, options.execArgv && { execArgv: options.execArgv });
  return started.pages(root)?.then(({ real, pages }) => {
    if (real !== root) throw new Error(`listed ${real}, not ${root}`);
    return pages;
  });
}
