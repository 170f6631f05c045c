import * as vscode from "vscode";
import { z } from "zod";
import { plural } from "../../core/tools/text";
import { textOutput, type Tool } from "../../core/tools/types";
import { relativeToRoot, resolveToolPath, type ToolPath } from "./paths";

const MAX_DIAGNOSTICS = 200;
const SEVERITY = ["error", "warning", "info", "hint"] as const;

export const DiagnosticsParams = z.strictObject({
  path: z
    .string()
    .min(1)
    .optional()
    .describe("File relative to the workspace root (default: every file of the workspace)"),
  severity: z
    .enum(["error", "warning", "all"])
    .optional()
    .describe("Lowest severity shown: error, warning (default) or all"),
});
export type DiagnosticsParams = z.infer<typeof DiagnosticsParams>;

function severityName(s: vscode.DiagnosticSeverity): (typeof SEVERITY)[number] {
  return SEVERITY[s] ?? "info";
}

function codeOf(d: vscode.Diagnostic): string {
  const code = typeof d.code === "object" && d.code !== null ? d.code.value : d.code;
  return code === undefined ? "" : String(code);
}

/** `line:col severity source(code): message`, 1-based like the editor shows it. */
export function formatDiagnostic(d: vscode.Diagnostic): string {
  const where = `${d.range.start.line + 1}:${d.range.start.character + 1}`;
  const code = codeOf(d);
  const source = d.source ? ` ${d.source}${code ? `(${code})` : ""}` : code ? ` (${code})` : "";
  return `${where} ${severityName(d.severity)}${source}: ${d.message.replace(/\s*\n\s*/g, " ")}`;
}

/** diagnostics: the problems VS Code's language servers report, for one file or the workspace. */
export function createDiagnosticsTool(): Tool<DiagnosticsParams> {
  return {
    name: "diagnostics",
    description:
      "Errors and warnings the editor's language servers report (what the Problems panel shows), for one file or the whole " +
      "workspace. Output: `path:line:column severity source(code): message`, 1-based.",
    parameters: DiagnosticsParams,
    kind: "read",
    readOnly: true,
    describe: (a) => `diagnostics of ${a.path ?? "the workspace"}`,
    async execute(args, ctx) {
      const lowest =
        args.severity === "all"
          ? vscode.DiagnosticSeverity.Hint
          : args.severity === "error"
            ? vscode.DiagnosticSeverity.Error
            : vscode.DiagnosticSeverity.Warning;
      let entries: [string, readonly vscode.Diagnostic[]][];
      if (args.path !== undefined) {
        const file = await resolveToolPath(ctx.root, args.path, false);
        entries = [[file.shown, vscode.languages.getDiagnostics(file.uri)]];
      } else {
        entries = [];
        for (const [uri, list] of vscode.languages.getDiagnostics()) {
          const rel = relativeToRoot(ctx.root, uri);
          if (rel !== undefined) entries.push([rel, list]);
        }
        entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      }
      const lines: string[] = [];
      let total = 0;
      for (const [rel, list] of entries) {
        const shown = [...list]
          .filter((d) => d.severity <= lowest)
          .sort((a, b) => a.severity - b.severity || a.range.start.line - b.range.start.line);
        total += shown.length;
        for (const d of shown) if (lines.length < MAX_DIAGNOSTICS) lines.push(`${rel}:${formatDiagnostic(d)}`);
      }
      const scope = args.path ?? "the workspace";
      if (total === 0)
        return textOutput(
          `no ${args.severity === "all" ? "diagnostics" : args.severity === "error" ? "errors" : "errors or warnings"} in ${scope}`,
        );
      const more =
        total > lines.length ? `\n[${total - lines.length} more not shown; ask for one file or severity error]` : "";
      return textOutput(`${plural(total, "problem")} in ${scope}\n${lines.join("\n")}${more}`, {
        truncated: total > lines.length,
      });
    },
  };
}

const key = (d: vscode.Diagnostic) => `${d.source ?? ""}|${codeOf(d)}|${d.message}`;

/** The errors of a file now, as a multiset of (source, code, message): lines move, so ranges are not compared. */
export function errorSnapshot(uri: vscode.Uri): Map<string, number> {
  const counts = new Map<string, number>();
  for (const d of vscode.languages.getDiagnostics(uri)) {
    if (d.severity === vscode.DiagnosticSeverity.Error) counts.set(key(d), (counts.get(key(d)) ?? 0) + 1);
  }
  return counts;
}

export interface DiagnosticsWatch {
  /** Starts listening for the file's next diagnostics update (before the edit, so none is missed). */
  watch(uri: vscode.Uri): PendingDiagnostics;
}
export interface PendingDiagnostics {
  /**
   * Resolves once the file's diagnostics have settled after the watch began: an update
   * that shows a new error, then a short quiet period; or updates without one followed by
   * a longer quiet period (a server often publishes syntax first, semantics later); never
   * later than the bound.
   */
  settled(signal: AbortSignal, hasNewErrors: () => boolean): Promise<void>;
  dispose(): void;
}

export interface DiagnosticsWaitOptions {
  /** Bound on the whole wait. */
  waitMs: number;
  /** Quiet period that ends the wait once an update shows a new error. */
  quietMs: number;
  /** Quiet period that ends it while no update has shown one (default 5 × quietMs). */
  idleMs?: number;
}

/** Waits (bounded) for a language server to publish diagnostics after an edit. */
export function diagnosticsWatch(options: DiagnosticsWaitOptions): DiagnosticsWatch {
  const idleMs = options.idleMs ?? options.quietMs * 5;
  return {
    watch(uri) {
      const target = uri.toString();
      let updates = 0;
      let wake: (() => void) | undefined;
      const sub = vscode.languages.onDidChangeDiagnostics((e) => {
        if (!e.uris.some((u) => u.toString() === target)) return;
        updates++;
        wake?.();
      });
      const started = Date.now();
      return {
        async settled(signal, hasNewErrors) {
          // Resolves on the next update, the abort, or after `ms`; true when an update came.
          const next = (ms: number) =>
            new Promise<boolean>((resolve) => {
              const before = updates;
              const timer = setTimeout(done, Math.max(0, ms));
              function done() {
                clearTimeout(timer);
                signal.removeEventListener("abort", done);
                wake = undefined;
                resolve(updates > before);
              }
              wake = done;
              signal.addEventListener("abort", done, { once: true });
            });
          const left = () => options.waitMs - (Date.now() - started);
          try {
            if (updates === 0 && !(await next(left()))) return;
            // Each update restarts the quiet period: short once a new error shows, longer while none does.
            while (!signal.aborted && left() > 0) {
              const quiet = hasNewErrors() ? options.quietMs : idleMs;
              if (!(await next(Math.min(quiet, left())))) return;
            }
          } finally {
            sub.dispose();
          }
        },
        dispose: () => sub.dispose(),
      };
    },
  };
}

/** Errors of the file now that were not there before (as a multiset). */
function introducedErrors(uri: vscode.Uri, before: Map<string, number>): vscode.Diagnostic[] {
  const remaining = new Map(before);
  const introduced: vscode.Diagnostic[] = [];
  for (const d of vscode.languages.getDiagnostics(uri)) {
    if (d.severity !== vscode.DiagnosticSeverity.Error) continue;
    const n = remaining.get(key(d)) ?? 0;
    if (n > 0) remaining.set(key(d), n - 1);
    else introduced.push(d);
  }
  return introduced;
}

/** The errors an edit introduced in its file, as a note for the model, once the server has updated. */
export async function collectNewErrors(
  pending: PendingDiagnostics,
  file: ToolPath,
  before: Map<string, number>,
  signal: AbortSignal,
): Promise<string | undefined> {
  await pending.settled(signal, () => introducedErrors(file.uri, before).length > 0);
  const introduced = introducedErrors(file.uri, before);
  if (introduced.length === 0) return undefined;
  const shown = introduced.slice(0, 20).map((d) => `  ${file.shown}:${formatDiagnostic(d)}`);
  const more = introduced.length > 20 ? `\n  [${introduced.length - 20} more]` : "";
  return `The edit introduced ${plural(introduced.length, "new error")} in ${file.shown}:\n${shown.join("\n")}${more}`;
}
