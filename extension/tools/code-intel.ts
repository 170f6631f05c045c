import * as vscode from "vscode";
import { z } from "zod";
import { ToolError } from "../../core/tools/errors";
import { plural } from "../../core/tools/text";
import { textOutput, type Tool, type ToolContext } from "../../core/tools/types";
import { editorText } from "./documents";
import { askLanguageUnlessStopped, emptyAnswer, LANGUAGE_WAIT_MS, type LanguageAnswer } from "./language-ready";
import { relativeToRoot, resolveToolPath } from "./paths";

/*
 * Code intelligence from VS Code's own language providers (the language servers the
 * user has): definitions, references, symbols and hovers, as workspace-relative
 * `path:line:column: source line` the model can read on from. Each asks through
 * language-ready.ts, so a window where the language's extension has not started yet
 * still gets the right answer, and "no language support" reads apart from "none found".
 */

const MAX_LOCATIONS = 100;
const MAX_SYMBOLS = 300;
const MAX_CONTEXT_CHARS = 200;

const PositionFields = {
  path: z
    .string()
    .min(1)
    .optional()
    .describe("File relative to the workspace root (needed with line; optional with symbol)"),
  line: z.number().int().min(1).optional().describe("1-based line of the position"),
  column: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("1-based column of the position (default: the symbol on that line, else 1)"),
  symbol: z.string().min(1).optional().describe("A symbol name, instead of (or to find on) a line"),
};
export const PositionParams = z
  .strictObject(PositionFields)
  .refine((a) => a.line !== undefined || a.symbol !== undefined, { message: "give line (and column) or symbol" })
  .refine((a) => a.line === undefined || a.path !== undefined, { message: "line needs path" });
export type PositionParams = z.infer<typeof PositionParams>;

export const DocumentSymbolsParams = z.strictObject({
  path: z.string().min(1).describe("File relative to the workspace root"),
});
export const WorkspaceSymbolsParams = z.strictObject({
  query: z.string().min(1).describe("Symbol name or part of one"),
});

type Located = { uri: vscode.Uri; range: vscode.Range };
type Symbols = (vscode.DocumentSymbol | vscode.SymbolInformation)[];

export interface CodeIntelOptions {
  /** How long to wait for a file's language features to start (LANGUAGE_WAIT_MS). */
  languageWaitMs?: number;
}

/** Source lines of the files a result names, read once per call (open documents as the editor has them). */
class LineCache {
  private readonly texts = new Map<string, Promise<string[] | undefined>>();
  line(uri: vscode.Uri, line: number): Promise<string | undefined> {
    const key = uri.toString();
    let text = this.texts.get(key);
    if (!text) {
      text = editorText(uri, key).then(
        (t) => t?.split("\n"),
        () => undefined,
      );
      this.texts.set(key, text);
    }
    return text.then((lines) => lines?.[line]?.replace(/\r$/, "").trim().slice(0, MAX_CONTEXT_CHARS));
  }
}

async function formatLocation(root: string, loc: Located, cache: LineCache): Promise<string> {
  const rel = relativeToRoot(root, loc.uri);
  const where = `${loc.range.start.line + 1}:${loc.range.start.character + 1}`;
  // Outside the folder the sandbox reads nothing: name the file, show no source.
  if (rel === undefined)
    return `[outside the workspace] ${loc.uri.path.slice(loc.uri.path.lastIndexOf("/") + 1)}:${where}`;
  const context = await cache.line(loc.uri, loc.range.start.line);
  return `${rel}:${where}:${context ? ` ${context}` : ""}`;
}

function toLocated(item: vscode.Location | vscode.LocationLink): Located {
  return "targetUri" in item ? { uri: item.targetUri, range: item.targetSelectionRange ?? item.targetRange } : item;
}

function flatten(
  symbols: readonly (vscode.DocumentSymbol | vscode.SymbolInformation)[],
  depth = 0,
  out: { s: vscode.DocumentSymbol | vscode.SymbolInformation; depth: number }[] = [],
) {
  for (const s of symbols) {
    out.push({ s, depth });
    if ("children" in s && s.children) flatten(s.children, depth + 1, out);
  }
  return out;
}

const kindName = (k: vscode.SymbolKind) => (vscode.SymbolKind[k] ?? "Symbol").toLowerCase();
const rangeOf = (s: vscode.DocumentSymbol | vscode.SymbolInformation) =>
  "selectionRange" in s ? s.selectionRange : s.location.range;

/** A wait for the language features shows in the tool's live output (the card's Output). */
const waitingNote = (ctx: ToolContext) => (note: string) => ctx.onUpdate?.({ text: note, stream: "progress" });

/** The document position a call names: its line and column, or where its symbol is. */
async function resolvePosition(
  args: PositionParams,
  ctx: ToolContext,
  waitMs: number,
): Promise<{ uri: vscode.Uri; position: vscode.Position; label: string; shown: string }> {
  if (args.path === undefined) {
    const found = (
      (await vscode.commands.executeCommand<vscode.SymbolInformation[]>(
        "vscode.executeWorkspaceSymbolProvider",
        args.symbol,
      )) ?? []
    ).filter((s) => s.name === args.symbol && relativeToRoot(ctx.root, s.location.uri) !== undefined);
    const first = found[0];
    if (!first)
      throw new ToolError(
        `no symbol named ${args.symbol} in the workspace (the language servers that are running found none; give path and line)`,
      );
    return {
      uri: first.location.uri,
      position: first.location.range.start,
      label: args.symbol!,
      shown: relativeToRoot(ctx.root, first.location.uri) ?? args.symbol!,
    };
  }
  const file = await resolveToolPath(ctx.root, args.path, false);
  const text = await editorText(file.uri, file.shown);
  if (text === undefined) throw new ToolError(`${file.shown}: no such file or directory`);
  const lines = text.split("\n");
  const word =
    args.symbol === undefined
      ? undefined
      : new RegExp(`(?<![\\w$])${args.symbol.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w$])`);
  if (args.line !== undefined) {
    const lineText = lines[args.line - 1];
    if (lineText === undefined)
      throw new ToolError(`${file.shown} has ${plural(lines.length, "line")}; line ${args.line} is past the end`);
    let column = (args.column ?? 1) - 1;
    if (args.column === undefined && word) {
      const at = word.exec(lineText)?.index;
      if (at === undefined) throw new ToolError(`${args.symbol} is not on line ${args.line} of ${file.shown}`);
      column = at;
    }
    return {
      uri: file.uri,
      position: new vscode.Position(args.line - 1, column),
      label: `${file.shown}:${args.line}:${column + 1}`,
      shown: file.shown,
    };
  }
  // A symbol in a file: its declaration by the document's symbols, else its first whole-word use.
  const symbols = (
    await askLanguageUnlessStopped<Symbols[number]>(
      file.uri,
      () => vscode.commands.executeCommand<Symbols>("vscode.executeDocumentSymbolProvider", file.uri),
      { waitMs, signal: ctx.signal, onWait: waitingNote(ctx) },
    )
  ).items;
  const declared = flatten(symbols).find(({ s }) => s.name === args.symbol);
  if (declared) return { uri: file.uri, position: rangeOf(declared.s).start, label: args.symbol!, shown: file.shown };
  for (let i = 0; i < lines.length; i++) {
    const at = word!.exec(lines[i]!)?.index;
    if (at !== undefined)
      return { uri: file.uri, position: new vscode.Position(i, at), label: args.symbol!, shown: file.shown };
  }
  throw new ToolError(`${args.symbol} does not occur in ${file.shown}`);
}

async function locationsOutput(
  root: string,
  what: string,
  answer: LanguageAnswer<vscode.Location | vscode.LocationLink>,
  file: string,
  waitMs: number,
) {
  const items = answer.items;
  if (items.length === 0) return textOutput(emptyAnswer(answer, `no ${what} found`, file, waitMs));
  const cache = new LineCache();
  const shown = await Promise.all(items.slice(0, MAX_LOCATIONS).map((i) => formatLocation(root, toLocated(i), cache)));
  const more = items.length > MAX_LOCATIONS ? `\n[${items.length - MAX_LOCATIONS} more not shown]` : "";
  return textOutput(`${plural(items.length, what.replace(/s$/, ""))}\n${shown.join("\n")}${more}`, {
    truncated: items.length > MAX_LOCATIONS,
  });
}

interface Where {
  uri: vscode.Uri;
  position: vscode.Position;
  label: string;
  /** The file as the output names it. */
  shown: string;
}

function positionTool(
  name: string,
  description: string,
  waitMs: number,
  run: (where: Where, ctx: ToolContext) => Promise<ReturnType<typeof textOutput>>,
): Tool<PositionParams> {
  return {
    name,
    description: `${description} Give path + line (+ column, 1-based), or a symbol name (with or without path). Waits up to ${Math.round(waitMs / 1000)} s for the file's language support to start.`,
    parameters: PositionParams,
    kind: "read",
    readOnly: true,
    describe: (a) =>
      `${name.replace("_", " ")} of ${a.symbol ?? `${a.path}:${a.line}${a.column ? `:${a.column}` : ""}`}`,
    async execute(args, ctx) {
      return run(await resolvePosition(args, ctx, waitMs), ctx);
    },
  };
}

function hoverText(h: vscode.Hover): string {
  return h.contents
    .map((c) =>
      typeof c === "string"
        ? c
        : "value" in c
          ? "language" in c && c.language
            ? `\`\`\`${c.language}\n${c.value}\n\`\`\``
            : c.value
          : "",
    )
    .map((t) => t.trim())
    .filter(Boolean)
    .join("\n\n");
}

export function createCodeIntelTools(options: CodeIntelOptions = {}): Tool[] {
  const waitMs = options.languageWaitMs ?? LANGUAGE_WAIT_MS;
  const ask = <T>(uri: vscode.Uri, ctx: ToolContext, query: () => Thenable<T[] | undefined>) =>
    askLanguageUnlessStopped(uri, query, { waitMs, signal: ctx.signal, onWait: waitingNote(ctx) });
  const definition = positionTool(
    "definition",
    "Where a symbol is defined, from the editor's language servers.",
    waitMs,
    async (w, ctx) =>
      locationsOutput(
        ctx.root,
        "definitions",
        await ask(w.uri, ctx, () =>
          vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>(
            "vscode.executeDefinitionProvider",
            w.uri,
            w.position,
          ),
        ),
        w.shown,
        waitMs,
      ),
  );
  const references = positionTool(
    "references",
    "Every use of a symbol (declaration included), from the editor's language servers.",
    waitMs,
    async (w, ctx) =>
      locationsOutput(
        ctx.root,
        "references",
        await ask(w.uri, ctx, () =>
          vscode.commands.executeCommand<vscode.Location[]>("vscode.executeReferenceProvider", w.uri, w.position),
        ),
        w.shown,
        waitMs,
      ),
  );
  const hover = positionTool(
    "hover",
    "The type and documentation the editor shows on hover at a position.",
    waitMs,
    async (w, ctx) => {
      const answer = await ask(w.uri, ctx, async () =>
        (
          (await vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", w.uri, w.position)) ?? []
        ).filter((h) => hoverText(h)),
      );
      const text = answer.items.map(hoverText).join("\n\n---\n\n");
      return textOutput(text || emptyAnswer(answer, `no hover information at ${w.label}`, w.shown, waitMs));
    },
  );
  const documentSymbols: Tool<z.infer<typeof DocumentSymbolsParams>> = {
    name: "document_symbols",
    description: `The outline of a file (classes, functions, variables… nested), from the editor's language servers. Waits up to ${Math.round(waitMs / 1000)} s for the file's language support to start.`,
    parameters: DocumentSymbolsParams,
    kind: "read",
    readOnly: true,
    describe: (a) => `outline of ${a.path}`,
    async execute(args, ctx) {
      const file = await resolveToolPath(ctx.root, args.path, false);
      if ((await editorText(file.uri, file.shown)) === undefined)
        throw new ToolError(`${file.shown}: no such file or directory`);
      const answer = await ask(file.uri, ctx, () =>
        vscode.commands.executeCommand<Symbols>("vscode.executeDocumentSymbolProvider", file.uri),
      );
      const symbols = flatten(answer.items);
      if (symbols.length === 0)
        return textOutput(emptyAnswer(answer, `no symbols in ${file.shown}`, file.shown, waitMs));
      const lines = symbols
        .slice(0, MAX_SYMBOLS)
        .map(
          ({ s, depth }) => `${"  ".repeat(depth)}${kindName(s.kind)} ${s.name}  (line ${rangeOf(s).start.line + 1})`,
        );
      const more = symbols.length > MAX_SYMBOLS ? `\n[${symbols.length - MAX_SYMBOLS} more not shown]` : "";
      return textOutput(`${file.shown}: ${plural(symbols.length, "symbol")}\n${lines.join("\n")}${more}`, {
        truncated: symbols.length > MAX_SYMBOLS,
      });
    },
  };
  const workspaceSymbols: Tool<z.infer<typeof WorkspaceSymbolsParams>> = {
    name: "workspace_symbols",
    description: "Find symbols (classes, functions…) by name across the workspace, from the editor's language servers.",
    parameters: WorkspaceSymbolsParams,
    kind: "read",
    readOnly: true,
    describe: (a) => `find symbol ${a.query}`,
    async execute(args, ctx) {
      const found = (
        (await vscode.commands.executeCommand<vscode.SymbolInformation[]>(
          "vscode.executeWorkspaceSymbolProvider",
          args.query,
        )) ?? []
      ).filter((s) => relativeToRoot(ctx.root, s.location.uri) !== undefined);
      if (found.length === 0) return textOutput(`no symbols match ${args.query}`);
      const cache = new LineCache();
      const lines = await Promise.all(
        found
          .slice(0, MAX_LOCATIONS)
          .map(
            async (s) =>
              `${kindName(s.kind)} ${s.name}${s.containerName ? ` (in ${s.containerName})` : ""}  ${await formatLocation(ctx.root, s.location, cache)}`,
          ),
      );
      const more =
        found.length > MAX_LOCATIONS ? `\n[${found.length - MAX_LOCATIONS} more not shown; refine the query]` : "";
      return textOutput(`${plural(found.length, "symbol")}\n${lines.join("\n")}${more}`, {
        truncated: found.length > MAX_LOCATIONS,
      });
    },
  };
  return [definition, references, documentSymbols, workspaceSymbols, hover];
}
