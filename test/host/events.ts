// Bounded waits on the editor's events, for the in-host tests: a condition is checked now
// and each time the event fires, never by polling; the bound is the only timer.
import type * as vscode from "vscode";
import { withTimeout } from "../support/with-timeout";

/**
 * Resolves with `probe()` once it gives a value: checked now and on every `event`, never by
 * polling; rejects after `ms` (the bound, the only timer).
 */
export function whenEvent<T>(
  what: string,
  event: vscode.Event<unknown>,
  probe: () => T | undefined,
  ms = 20_000,
): Promise<T> {
  let sub: vscode.Disposable | undefined;
  const found = new Promise<T>((resolve) => {
    const check = () => {
      const value = probe();
      if (value !== undefined) resolve(value);
    };
    sub = event(check);
    check();
  });
  return withTimeout(found, ms, what).finally(() => sub?.dispose());
}
