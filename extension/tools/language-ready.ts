import * as vscode from "vscode";
import { ToolError } from "../../core/tools/errors";

/**
 * Code intelligence on the first question (issue 19 item 4). In a fresh window the
 * extension that serves a language (TypeScript's, say) is not active until a file of
 * that language opens, and VS Code's provider commands then answer "nothing" at once.
 * So the tools open the document, activate the extensions that declare the language,
 * and ask again with backoff while the answer is empty and the language features are
 * still starting — within LANGUAGE_WAIT_MS — and say which of three cases it was.
 */

/**
 * How long a code-intelligence tool waits for a file's language features to start. 60 s ran
 * out at load 26-30 on 2 cores (tsserver had not loaded a 2-file project); CI is slower still.
 */
export const LANGUAGE_WAIT_MS = 120_000;
/** A question still waiting after this long says so once (the tool's live output), then keeps waiting. */
export const WAIT_NOTE_AFTER_MS = 1000;
/** Backoff between asks while the answer is empty: doubling from the first, capped. */
const FIRST_RETRY_MS = 50;
const MAX_RETRY_MS = 1000;

/**
 * "answered": results. "ready": the language features answer (the file's outline is
 * there) and this question has no result. "no-support": no installed extension declares
 * the file's language. "timeout": they did not start within the bound.
 */
export type LanguageAnswer<T> = {
  items: T[];
  state: "answered" | "ready" | "no-support" | "timeout";
  languageId: string;
};

/** Extensions (other than this one) that activate on the language or contribute it with code to run. */
export function languageExtensions(languageId: string): vscode.Extension<unknown>[] {
  const all = (vscode.extensions?.all ?? []) as readonly vscode.Extension<{
    activationEvents?: string[];
    main?: string;
    browser?: string;
    contributes?: { languages?: { id?: string }[] };
    name?: string;
    publisher?: string;
  }>[];
  return all.filter((e) => {
    const pkg = e.packageJSON ?? {};
    if (`${pkg.publisher}.${pkg.name}`.toLowerCase() === "downcity.downcity-vscode") return false;
    if (pkg.activationEvents?.includes(`onLanguage:${languageId}`)) return true;
    // A grammar-only extension contributes the language but serves no provider.
    return Boolean(
      (pkg.main || pkg.browser) && pkg.contributes?.languages?.some((l: { id?: string }) => l.id === languageId),
    );
  });
}

/** A wait of `ms` that an abort ends early; `cancel` clears its timer (a race it lost must leave none behind). */
function sleep(ms: number, signal: AbortSignal | undefined): { done: Promise<void>; cancel(): void } {
  let cancel = () => {};
  const done = new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const end = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", end);
      resolve();
    };
    const timer = setTimeout(end, ms);
    signal?.addEventListener("abort", end, { once: true });
    cancel = end;
  });
  return { done, cancel };
}

/** True when `work` settles (either way) within `ms`, false at the bound or on abort; no timer outlives it. */
async function within(work: PromiseLike<unknown>, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  const bound = sleep(ms, signal);
  try {
    return await Promise.race([
      Promise.resolve(work).then(
        () => true,
        () => true,
      ),
      bound.done.then(() => false),
    ]);
  } finally {
    bound.cancel();
  }
}

/** The outline VS Code's symbol providers give for the file: non-empty once its language features answer. */
async function outline(uri: vscode.Uri): Promise<number> {
  const symbols = await vscode.commands.executeCommand<unknown[] | undefined>(
    "vscode.executeDocumentSymbolProvider",
    uri,
  );
  return symbols?.length ?? 0;
}

/**
 * Servers that answer early from a partial model, and the request that waits for the
 * full one. TypeScript's server answers definitions from the open files alone while it
 * loads the file's project (an import, not the declaration it names); its semantic
 * diagnostics wait for the project.
 */
const tsFullModel = (uri: vscode.Uri) =>
  vscode.commands.executeCommand("typescript.tsserverRequest", "semanticDiagnosticsSync", { file: uri });
const FULL_MODEL: Record<string, (uri: vscode.Uri) => Thenable<unknown>> = {
  typescript: tsFullModel,
  typescriptreact: tsFullModel,
  javascript: tsFullModel,
  javascriptreact: tsFullModel,
};

/**
 * Resolves true once the language features have the file: its outline answers, and for
 * a server with a partial mode (FULL_MODEL) its full model does too. False at the deadline.
 * For such a server the full model is asked from the start too: it answering is enough on
 * its own, so a file with no symbols (an empty module, a script of bare statements) is not
 * held for the whole bound by an outline that stays empty.
 */
async function settled(
  uri: vscode.Uri,
  languageId: string,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const full = FULL_MODEL[languageId];
  // The full model is asked at once and its answer ends a backoff sleep. A failing request (an older server, a file
  // the server does not have open yet) proves nothing: it is asked again at the next backoff step.
  const answered = new AbortController();
  let pending: Promise<boolean> | undefined;
  const askFull = () =>
    (pending = Promise.resolve(full!(uri)).then(
      () => (answered.abort(), true),
      () => ((pending = undefined), false),
    ));
  const wake = signal ? AbortSignal.any([signal, answered.signal]) : answered.signal;
  for (let delay = FIRST_RETRY_MS; ; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
    if (full && !pending && !answered.signal.aborted) askFull();
    if (answered.signal.aborted || (await outline(uri)) > 0) break;
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) return false;
    await sleep(Math.min(delay, left), wake).done;
    if (signal?.aborted) return false; // stopped: the server is not asked again
  }
  if (!full || answered.signal.aborted) return true;
  const left = deadline - Date.now();
  if (left <= 0) return false;
  // A failing last request (an older server, a command not found) leaves the outline as the signal.
  return within(pending ?? askFull(), left, signal);
}

/**
 * Asks `query` about `uri` the way a user's first question should be answered: the
 * document opened, its language's extensions activated, and — when the language server
 * meets the file for the first time — asked once its features have the file, else again
 * with backoff while the answer is empty (all within `waitMs`).
 */
export async function askLanguage<T>(
  uri: vscode.Uri,
  query: () => Thenable<T[] | undefined>,
  options: { waitMs?: number; signal?: AbortSignal; onWait?: (note: string) => void } = {},
): Promise<LanguageAnswer<T>> {
  const waitMs = options.waitMs ?? LANGUAGE_WAIT_MS;
  const deadline = Date.now() + waitMs;
  const key = uri.toString();
  const wasOpen = vscode.workspace.textDocuments.some((d) => d.uri.toString() === key);
  // Opening fires onLanguage activation (and hands the file to its language server); no editor is shown.
  const doc = await vscode.workspace.openTextDocument(uri);
  const languageId = doc.languageId;
  const supporters = languageExtensions(languageId);
  if (supporters.length === 0) {
    const items = (await query()) ?? [];
    return { items, state: items.length > 0 ? "answered" : "no-support", languageId };
  }
  // A first question may wait up to the bound: past a second, the card's live output says why it still runs.
  const note = sleep(WAIT_NOTE_AFTER_MS, options.signal);
  let over = false;
  void note.done.then(() => {
    if (!over && !options.signal?.aborted) options.onWait?.(waitNote(languageId, waitMs));
  });
  try {
    return await answerWhenReady(uri, query, languageId, supporters, wasOpen, deadline, waitMs, options.signal);
  } finally {
    over = true;
    note.cancel();
  }
}

/**
 * askLanguage for a tool: when Stop ended the wait (not the bound), an error that says so, which the run marks
 * cancelled; the answer would read "did not answer within 120 s", which is false.
 */
export async function askLanguageUnlessStopped<T>(
  uri: vscode.Uri,
  query: () => Thenable<T[] | undefined>,
  options: { waitMs?: number; signal?: AbortSignal; onWait?: (note: string) => void } = {},
): Promise<LanguageAnswer<T>> {
  const answer = await askLanguage(uri, query, options);
  if (options.signal?.aborted && answer.state !== "answered")
    throw new ToolError(`stopped while waiting for the ${answer.languageId} language features to start`);
  return answer;
}

/** The note a question still waiting for its language features gives. */
export function waitNote(languageId: string, waitMs: number): string {
  return `waiting for the ${languageId} language features to start (at most ${Math.round(waitMs / 1000)} s)…\n`;
}

async function answerWhenReady<T>(
  uri: vscode.Uri,
  query: () => Thenable<T[] | undefined>,
  languageId: string,
  supporters: vscode.Extension<unknown>[],
  wasOpen: boolean,
  deadline: number,
  waitMs: number,
  signal: AbortSignal | undefined,
): Promise<LanguageAnswer<T>> {
  const starting = supporters.filter((e) => !e.isActive);
  if (starting.length > 0) await within(Promise.allSettled(starting.map((e) => e.activate())), waitMs, signal);
  const ask = async () => (await query()) ?? [];
  // A file the server already has is asked at once; a new one once the server has it (an early answer may be partial).
  if (!wasOpen || starting.length > 0) {
    const ready = await settled(uri, languageId, deadline, signal);
    const items = await ask();
    return { items, state: items.length > 0 ? "answered" : ready ? "ready" : "timeout", languageId };
  }
  let items = await ask();
  if (items.length > 0) return { items, state: "answered", languageId };
  const ready = await settled(uri, languageId, deadline, signal);
  items = await ask();
  return { items, state: items.length > 0 ? "answered" : ready ? "ready" : "timeout", languageId };
}

/** What a tool says when the answer is empty, by why it is empty. */
export function emptyAnswer(
  answer: LanguageAnswer<unknown>,
  nothing: string,
  shown: string,
  waitMs = LANGUAGE_WAIT_MS,
): string {
  if (answer.state === "no-support") {
    return `no language support for ${shown}: no installed extension provides code intelligence for ${answer.languageId} files (search the text with grep instead)`;
  }
  if (answer.state === "timeout") {
    return `${nothing}: the ${answer.languageId} language features did not answer within ${Math.round(waitMs / 1000)} s (they may still be starting: ask again)`;
  }
  return nothing;
}
