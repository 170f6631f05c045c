/**
 * A chat webview whose document never says hello gets a fresh webview host (issue 19).
 *
 * Why it happens: code-server serves every webview host from one origin, so all of them share
 * one service worker, and each host registers it under its own URL before it builds its content
 * frame. When two hosts load at the same instant (a window reload restoring the sidebar chat and
 * an editor chat together), the first one's version check can reach a worker the second one's
 * registration has already replaced: its wait for the worker never ends, and it never loads the
 * document we gave it. Setting the html again does not help (the same wait comes first); a new
 * host does, and VS Code builds one when a view is shown again or a panel is recreated.
 *
 * A document that is silent through the bound is asked first (`ask`), and only one that does not answer either is
 * replaced: a new host costs the chat what it showed, and a host loading beside another is what gets stuck.
 *
 * Knows nothing of VS Code: the view says when its document (re)loads, when the webview spoke,
 * when it was hidden; `recover` is how its kind of webview gets a new host.
 */
/** Recoveries left to one webview and those that replace it; a hello gives them back. */
export interface RecoveryBudget {
  left: number;
}

export interface HelloWatchdogOptions {
  /** How long a visible document may take to say hello (a loaded machine takes a few seconds). */
  boundMs: number;
  /** Shared with the webviews that replace this one: a document that cannot start is not replaced forever. */
  budget: RecoveryBudget;
  /**
   * Asks the document whether it runs (a `ping` it answers): silence through the bound is not proof. A document
   * painted from its saved state, or one shown again by a view-state change that did not reload it, runs but may
   * not say hello in time; replacing it blanks a working chat (issue 19, first5-moved-picker-ui step 03).
   */
  ask: () => void;
  recover: () => void | Promise<void>;
  /** What the watchdog decided, for the hop trace. */
  note?: (what: "asked" | "recovered") => void;
  /** Where a recovery's failure goes (it must not throw into a timer). */
  failed?: (error: unknown) => void;
}

export const HELLO_BOUND_MS = 10_000;
/** How long an asked document has to answer before it is replaced. */
export const ASK_BOUND_MS = 10_000;
export const MAX_HELLO_RECOVERIES = 2;

export const recoveryBudget = (): RecoveryBudget => ({ left: MAX_HELLO_RECOVERIES });

export class HelloWatchdog {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;

  constructor(private readonly options: HelloWatchdogOptions) {}

  /** A visible webview is loading a document (html set while shown, or shown again): it must speak within the bound. */
  loading(): void {
    if (this.disposed) return;
    this.disarm();
    this.timer = setTimeout(() => this.silent(), this.options.boundMs);
  }

  /** The document spoke (its own message, attributed by the webview it came through): it is alive, and the budget is whole again. */
  greeted(): void {
    this.disarm();
    this.options.budget.left = MAX_HELLO_RECOVERIES;
  }

  /** Hidden: there is no document to wait for until it is shown again. */
  hidden(): void {
    this.disarm();
  }

  dispose(): void {
    this.disposed = true;
    this.disarm();
  }

  /** Silent through the bound: ask before deciding (a running document answers, whatever it was doing). */
  private silent(): void {
    this.timer = undefined;
    if (this.disposed || this.options.budget.left <= 0) return;
    this.timer = setTimeout(() => this.expired(), ASK_BOUND_MS);
    this.options.note?.("asked");
    try {
      this.options.ask();
    } catch (error) {
      this.options.failed?.(error);
    }
  }

  private expired(): void {
    this.timer = undefined;
    if (this.disposed || this.options.budget.left <= 0) return;
    this.options.budget.left--;
    this.options.note?.("recovered");
    try {
      void Promise.resolve(this.options.recover()).catch((error) => this.options.failed?.(error));
    } catch (error) {
      this.options.failed?.(error);
    }
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
