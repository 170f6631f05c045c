import * as vscode from "vscode";

/** A cancellation token that follows an AbortSignal (the tools' cancellation) for VS Code's APIs. */
export function tokenFor(signal: AbortSignal): { token: vscode.CancellationToken; dispose(): void } {
  const source = new vscode.CancellationTokenSource();
  const cancel = () => source.cancel();
  if (signal.aborted) source.cancel();
  else signal.addEventListener("abort", cancel, { once: true });
  return {
    token: source.token,
    dispose() {
      signal.removeEventListener("abort", cancel);
      source.dispose();
    },
  };
}

/** A prompt's answer, or undefined as soon as the call is cancelled (a notification cannot be withdrawn). */
export function untilAborted<T>(signal: AbortSignal, prompt: () => Thenable<T | undefined>): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(prompt()).then(
      (answer) => {
        signal.removeEventListener("abort", onAbort);
        resolve(answer);
      },
      () => resolve(undefined),
    );
  });
}
