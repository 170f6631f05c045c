import * as vscode from "vscode";

/** What one terminal keeps of its commands' output (the tail), for @terminal. */
const KEEP_CHARS = 16 * 1024;
/** How long @terminal waits for the rest of an ended command's output to be read. */
const DRAIN_MS = 2_000;

interface Recent {
  execution: vscode.TerminalShellExecution;
  command: string;
  output: string;
  ended: boolean;
  /** The read loop finished: all of the command's output is in `output`. */
  drained: Promise<void>;
}

/**
 * Recent output of the user's terminals, for @terminal. VS Code gives a terminal's output
 * only through shell integration (`onDidStartTerminalShellExecution` → `execution.read()`,
 * called at once so nothing is missed), so this listens from activation on and keeps each
 * terminal's last command and the tail of its output. A terminal without shell
 * integration has nothing here, and @terminal says so instead of guessing.
 */
export class TerminalOutputs implements vscode.Disposable {
  private readonly recent = new WeakMap<vscode.Terminal, Recent>();
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    this.subscriptions = [
      vscode.window.onDidStartTerminalShellExecution((event) => this.record(event.terminal, event.execution)),
      vscode.window.onDidEndTerminalShellExecution((event) => {
        const entry = this.recent.get(event.terminal);
        if (entry?.execution === event.execution) entry.ended = true;
      }),
    ];
  }

  private record(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): void {
    const stream = execution.read();
    const entry: Recent = {
      execution,
      command: execution.commandLine.value,
      output: "",
      ended: false,
      drained: Promise.resolve(),
    };
    entry.drained = (async () => {
      try {
        for await (const data of stream) entry.output = (entry.output + data).slice(-KEEP_CHARS);
      } catch {
        /* the terminal went away mid-read: what was read is kept */
      }
    })();
    this.recent.set(terminal, entry);
  }

  /** The active terminal's name and recent output (all of it once its command ended), or why there is none. */
  async active(): Promise<{ name: string; output: string; command: string } | { unavailable: string }> {
    const terminal = vscode.window.activeTerminal;
    if (!terminal) return { unavailable: "no terminal is open: run something in a terminal first" };
    const recent = this.recent.get(terminal);
    if (recent) {
      // The end event may come before the last of the output is read: wait for the read (bounded), not for time.
      if (recent.ended) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([recent.drained, new Promise<void>((r) => (timer = setTimeout(r, DRAIN_MS)))]);
        clearTimeout(timer);
      }
      const output = recent.output || (recent.ended ? await lastCommandOutput() : "");
      return { name: terminal.name, output, command: recent.command };
    }
    if (!terminal.shellIntegration) {
      return {
        unavailable: `the terminal "${terminal.name}" has no shell integration, so its output cannot be read (enable terminal.integrated.shellIntegration.enabled and use a supported shell, or paste the output)`,
      };
    }
    return { unavailable: `the terminal "${terminal.name}" has run no command since Downcity started` };
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
  }
}

/**
 * The active terminal's last command output from its buffer, for when the shell's
 * integration marks commands but its stream gave no data (seen with code-server's bash):
 * VS Code's own "Copy Last Command Output", the user's clipboard put back after.
 */
async function lastCommandOutput(): Promise<string> {
  const saved = await vscode.env.clipboard.readText();
  const marker = `\u0000downcity-${Date.now()}`;
  try {
    await vscode.env.clipboard.writeText(marker);
    await vscode.commands.executeCommand("workbench.action.terminal.copyLastCommandOutput");
    const copied = await vscode.env.clipboard.readText();
    return copied === marker ? "" : copied;
  } catch {
    return "";
  } finally {
    await vscode.env.clipboard.writeText(saved);
  }
}
