import * as vscode from "vscode";
import { sessionKey, type LocalSessionRef } from "../../core/protocol";

/** One session's pseudoterminal: shows its commands' output live; closing it or Ctrl+C stops them. */
class SessionTerminal {
  private readonly output = new vscode.EventEmitter<string>();
  private readonly closed = new vscode.EventEmitter<number | void>();
  private buffered: string[] | undefined = [];
  readonly terminal: vscode.Terminal;

  constructor(
    name: string,
    private readonly onUserStop: () => void,
    private readonly onGone: () => void,
  ) {
    const pty: vscode.Pseudoterminal = {
      onDidWrite: this.output.event,
      onDidClose: this.closed.event,
      open: () => {
        // Output written before the terminal opened is shown once it does.
        for (const text of this.buffered ?? []) this.output.fire(text);
        this.buffered = undefined;
      },
      close: () => {
        // The user closed the terminal: its running commands die with it.
        this.onUserStop();
        this.onGone();
      },
      handleInput: (data) => {
        if (data === "\x03") this.onUserStop();
      },
    };
    this.terminal = vscode.window.createTerminal({ name, pty, isTransient: true });
  }

  write(text: string): void {
    const crlf = text.replace(/\r?\n/g, "\r\n");
    if (this.buffered) this.buffered.push(crlf);
    else this.output.fire(crlf);
  }

  dispose(): void {
    this.closed.fire();
    this.terminal.dispose();
    this.output.dispose();
    this.closed.dispose();
  }
}

/**
 * The terminals of run_command, one per session, and the commands running in each: every
 * run gets an AbortController that the call's signal, closing the terminal, Ctrl+C in it,
 * disposing the session and disposing everything (extension deactivate) abort. Keyed by
 * agent and session: two agents may hold the same session id, and each has its own terminal.
 */
export class CommandTerminals {
  private readonly terminals = new Map<string, SessionTerminal>();
  private readonly runs = new Map<string, Set<{ abort: AbortController; done: Promise<unknown> }>>();

  constructor(private readonly label: (sessionId: string) => string) {}

  terminal(ref: LocalSessionRef): SessionTerminal {
    const key = keyOf(ref);
    let t = this.terminals.get(key);
    if (!t) {
      t = new SessionTerminal(
        `Downcity: ${this.label(ref.sessionId)}`,
        () => this.stopKey(key),
        () => this.terminals.delete(key),
      );
      this.terminals.set(key, t);
      t.terminal.show(true);
    }
    return t;
  }

  /** Runs `body` with a signal that every stop path aborts; the run is tracked until it settles. */
  async run<T>(ref: LocalSessionRef, signal: AbortSignal, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const abort = new AbortController();
    const onAbort = () => abort.abort(signal.reason);
    if (signal.aborted) abort.abort(signal.reason);
    else signal.addEventListener("abort", onAbort, { once: true });
    const done = body(abort.signal);
    const entry = { abort, done: done.catch(() => undefined) };
    const key = keyOf(ref);
    let set = this.runs.get(key);
    if (!set) this.runs.set(key, (set = new Set()));
    set.add(entry);
    try {
      return await done;
    } finally {
      signal.removeEventListener("abort", onAbort);
      set.delete(entry);
    }
  }

  /** Stops the session's running commands (their process groups are killed) and waits for them. */
  stop(ref: LocalSessionRef): Promise<void> {
    return this.stopKey(keyOf(ref));
  }

  /** A session went away: stop its commands and close its terminal. */
  disposeSession(ref: LocalSessionRef): Promise<void> {
    return this.disposeKey(keyOf(ref));
  }

  async dispose(): Promise<void> {
    const keys = new Set([...this.runs.keys(), ...this.terminals.keys()]);
    await Promise.all([...keys].map((key) => this.disposeKey(key)));
  }

  private async stopKey(key: string): Promise<void> {
    const set = this.runs.get(key);
    if (!set) return;
    for (const r of set) r.abort.abort(new Error("stopped"));
    await Promise.all([...set].map((r) => r.done));
  }

  private async disposeKey(key: string): Promise<void> {
    await this.stopKey(key);
    this.runs.delete(key);
    this.terminals.get(key)?.dispose();
    this.terminals.delete(key);
  }
}

/** The one key encoding (a caller that names no agent keys by the session id under an empty agent). */
const keyOf = (ref: LocalSessionRef) => sessionKey({ agentId: ref.agentId ?? "", sessionId: ref.sessionId });
