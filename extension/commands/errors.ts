import * as vscode from "vscode";

/** An action an error message offers, and the command it runs. */
interface Remedy {
  title: string;
  command: string;
  args?: unknown[];
}

/** The remedies that fit what failed (the message of the error, and the session it was about). */
export function remediesFor(message: string, session?: unknown): Remedy[] {
  const remedies: Remedy[] = [];
  if (/Restricted Mode/.test(message)) return [{ title: "Manage Workspace Trust", command: "workbench.trust.manage" }];
  if (/api key|unauthori[sz]ed|\bauth|\b401\b|\b403\b/i.test(message)) remedies.push({ title: "Set API Key", command: "downcity.setApiKey" });
  if (/no (model )?provider|no model (is )?(configured|selected)|unknown (model|provider)|model.*(not found|does not exist)|\b404\b|context window/i.test(message)) remedies.push({ title: "Select Model", command: "downcity.selectModel" });
  if (session && /damaged|storage|read-only|lock|ENOSPC|EACCES|EPERM|EIO|segment|meta\.json/i.test(message)) {
    remedies.push({ title: "Show Session Files", command: "downcity.showSessionFiles", args: [session] });
  }
  return remedies;
}

/** Shows "Downcity: <what> failed: <why>" with the actions that may fix it, and runs the chosen one. */
export async function showFailure(what: string, error: unknown, session?: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  const remedies = remediesFor(message, session);
  const chosen = await vscode.window.showErrorMessage(`Downcity: ${what} failed: ${message}`, ...remedies.map((r) => r.title));
  const remedy = remedies.find((r) => r.title === chosen);
  if (remedy) await vscode.commands.executeCommand(remedy.command, ...(remedy.args ?? []));
}

/** Wraps a command so a failure is always reported, never an unhandled rejection. */
export function guarded<A extends unknown[]>(what: string, fn: (...args: A) => Promise<unknown>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (error) {
      if (error instanceof vscode.CancellationError) return;
      await showFailure(what, error, args[0]);
    }
  };
}
