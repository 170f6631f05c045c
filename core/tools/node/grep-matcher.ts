import { Worker } from "node:worker_threads";
import { ToolError } from "../errors";

/** One file's text to match, with its workspace-relative path. */
export interface MatchFile {
  rel: string;
  text: string;
}

export interface MatcherOptions {
  source: string;
  flags: string;
  maxLineChars: number;
  /** Total time the regular expression may run over the whole search. */
  timeLimitMs: number;
}

/**
 * The worker's whole program, as source text so it needs no file of its own in the
 * bundle (and no bundler rewrites it): it compiles the pattern once and answers each
 * batch of files with its matching lines, stopping once `want` lines were found.
 */
const MATCHER_PROGRAM = `
const { parentPort, workerData } = require("node:worker_threads");
const regex = new RegExp(workerData.source, workerData.flags);
const maxLine = workerData.maxLineChars;
parentPort.on("message", (batch) => {
  const lines = [];
  let more = false;
  outer: for (const file of batch.files) {
    let lineNo = 0;
    for (const raw of file.text.split("\\n")) {
      lineNo++;
      const line = raw.endsWith("\\r") ? raw.slice(0, -1) : raw;
      if (!regex.test(line)) continue;
      if (lines.length === batch.want) { more = true; break outer; }
      lines.push(file.rel + ":" + lineNo + ":" + (line.length > maxLine ? line.slice(0, maxLine) + "\u2026" : line));
    }
  }
  parentPort.postMessage({ lines, more });
});
`;

/**
 * Runs the model's regular expression on a worker thread, so a catastrophic pattern
 * cannot freeze the host's event loop (in VS Code: the whole extension host). When the
 * time limit is used up or the call is cancelled, the worker is terminated.
 */
export class RegexMatcher {
  private readonly worker: Worker;
  private used = 0;
  private failed: Error | undefined;

  constructor(private readonly options: MatcherOptions) {
    this.worker = new Worker(MATCHER_PROGRAM, {
      eval: true,
      workerData: { source: options.source, flags: options.flags, maxLineChars: options.maxLineChars },
    });
  }

  /** Matching lines of `files`, at most `want`; `more` when further matches were left. */
  match(files: MatchFile[], want: number, signal: AbortSignal): Promise<{ lines: string[]; more: boolean }> {
    if (this.failed) return Promise.reject(this.failed);
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const done = (error: Error | undefined, value?: { lines: string[]; more: boolean }) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.worker.off("message", onMessage);
        this.worker.off("error", onError);
        this.used += performance.now() - started;
        if (error) {
          this.failed = error;
          void this.worker.terminate();
          reject(error);
        } else resolve(value!);
      };
      const onMessage = (value: { lines: string[]; more: boolean }) => done(undefined, value);
      const onError = (err: Error) => done(new ToolError(`grep failed: ${err.message}`));
      const onAbort = () => done(signal.reason instanceof Error ? signal.reason : new ToolError("grep was cancelled"));
      const limit = this.options.timeLimitMs;
      const timer = setTimeout(
        () =>
          done(
            new ToolError(
              `the regular expression ran for more than ${limit / 1000} s and was stopped (it backtracks too much on this text); ` +
                `simplify the pattern, narrow the path or include, or use fixedStrings`,
            ),
          ),
        Math.max(0, limit - this.used),
      );
      signal.addEventListener("abort", onAbort, { once: true });
      this.worker.on("message", onMessage);
      this.worker.on("error", onError);
      this.worker.postMessage({ files, want });
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
