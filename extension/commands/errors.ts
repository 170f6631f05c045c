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
  if (/api key|unauthori[sz]ed|\bauth|\b401\b|\b403\b/i.test(message))
    remedies.push({ title: "Set API Key", command: "downcity.setApiKey" });
  if (
    /no (model )?provider|no model (is )?(configured|selected)|unknown (model|provider)|model.*(not found|does not exist)|\b404\b|context window/i.test(
      message,
    )
  )
    remedies.push({ title: "Select Model", command: "downcity.selectModel" });
  if (session && /damaged|storage|read-only|lock|ENOSPC|EACCES|EPERM|EIO|segment|meta\.json/i.test(message)) {
    remedies.push({ title: "Show Session Files", command: "downcity.showSessionFiles", args: [session] });
  }
  return remedies;
}

/** Shows "Downcity: <what> failed: <why>" with the actions that may fix it, and runs the chosen one. */
export async function showFailure(what: string, error: unknown, session?: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  const remedies = remediesFor(message, session);
  const chosen = await vscode.window.showErrorMessage(
    `Downcity: ${what} failed: ${message}`,
    ...remedies.map((r) => r.title),
  );
  const remedy = remedies.find((r) => r.title === chosen);
  if (remedy) await vscode.commands.executeCommand(remedy.command, ...(remedy.args ?? []));
}

/**
 * Wraps a command so a failure is always reported, never an unhandled rejection. The
 * command's result is passed through (undefined after a failure); a caller is not kept
 * waiting until the user dismisses the error notification.
 */
export function guarded<A extends unknown[], R>(
  what: string,
  fn: (...args: A) => Promise<R>,
): (...args: A) => Promise<R | undefined> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (error) {
      if (error instanceof vscode.CancellationError) return undefined;
      // Only a session is handed to a remedy: other arguments (an API key) stay here.
      const session = isSessionTarget(args[0]) ? args[0] : undefined;
      void showFailure(what, error, session).catch(() => undefined);
      return undefined;
    }
  };
}

const isSessionTarget = (arg: unknown): boolean =>
  typeof arg === "object" && arg !== null && (("kind" in arg && arg.kind === "session") || "sessionId" in arg);
