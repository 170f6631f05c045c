import * as vscode from "vscode";

/** What one terminal keeps of its commands' output (the tail), for @terminal. */
const KEEP_CHARS = 16 * 1024;

interface Recent {
  command: string;
  output: string;
}

/**
 * Recent output of the user's terminals, for @terminal. VS Code gives a terminal's output
 * only through shell integration (`onDidStartTerminalShellExecution` → `execution.read()`),
 * so this listens from activation on and keeps each terminal's last command and the tail
 * of its output. A terminal without shell integration has nothing here, and @terminal
 * says so instead of guessing.
 */
export class TerminalOutputs implements vscode.Disposable {
  private readonly recent = new WeakMap<vscode.Terminal, Recent>();
  private readonly subscription: vscode.Disposable;

  constructor() {
    this.subscription = vscode.window.onDidStartTerminalShellExecution((event) => void this.record(event.terminal, event.execution));
  }

  private async record(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): Promise<void> {
    const entry: Recent = { command: execution.commandLine.value, output: "" };
    this.recent.set(terminal, entry);
    try {
      for await (const data of execution.read()) {
        entry.output = (entry.output + data).slice(-KEEP_CHARS);
      }
    } catch {
      /* the terminal went away mid-read: what was read is kept */
    }
  }

  /** The active terminal's name and recent output, or why there is none. */
  active(): { name: string; output: string; command: string } | { unavailable: string } {
    const terminal = vscode.window.activeTerminal;
    if (!terminal) return { unavailable: "no terminal is open: run something in a terminal first" };
    const recent = this.recent.get(terminal);
    if (recent) return { name: terminal.name, output: recent.output, command: recent.command };
    if (!terminal.shellIntegration) {
      return { unavailable: `the terminal "${terminal.name}" has no shell integration, so its output cannot be read (enable terminal.integrated.shellIntegration.enabled and use a supported shell, or paste the output)` };
    }
    return { unavailable: `the terminal "${terminal.name}" has run no command since Downcity started` };
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
