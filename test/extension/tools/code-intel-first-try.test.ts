// Code intelligence on the first question (issue 19 item 4), over the vscode fake: the
// language's extension is activated and asked again while it starts; "no language
// support" reads apart from "none found". The real TypeScript case is the in-host test
// test/host/code-intel-fresh-window.host.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ToolRegistry } from "../../../core/tools/registry";
import { createCodeIntelTools } from "../../../extension/tools/code-intel";
import { DocumentSymbol, Location, Range, SymbolKind } from "../../support/vscode-fake/editor";
import { Uri, commands, extensions } from "../../support/vscode-fake/index";
import { editorWorkspace, text } from "./helpers";

/** A language extension that is not active yet: activating it (once) lets its providers answer after `warmAsks` more asks. */
function languageExtension(
  t: { after(fn: () => unknown): void },
  languageId: string,
  options: { active?: boolean } = {},
) {
  const ext = {
    id: "test.language",
    isActive: options.active ?? false,
    activations: 0,
    packageJSON: {
      name: "language",
      publisher: "test",
      main: "./main.js",
      activationEvents: [`onLanguage:${languageId}`],
    },
    async activate() {
      ext.activations++;
      ext.isActive = true;
    },
  };
  extensions.all = [ext];
  t.after(() => (extensions.all = []));
  return ext;
}

/** A provider command that answers `empty` times with nothing (the server starting), then `answer`. */
function provider(t: { after(fn: () => unknown): void }, id: string, empty: number, answer: () => unknown[]) {
  let asked = 0;
  const reg = commands.registerCommand(id, () => (++asked <= empty ? [] : answer()));
  t.after(() => reg.dispose());
  return { asked: () => asked };
}

function tools(t: { after(fn: () => unknown): void }, languageWaitMs?: number) {
  const ws = editorWorkspace(t);
  const registry = new ToolRegistry(createCodeIntelTools(languageWaitMs === undefined ? {} : { languageWaitMs }));
  return { ws, run: (name: string, args: unknown) => registry.run(name, args, ws.ctx()) };
}

test("the first question is answered right while the language's server starts: its extension activated once, the early partial answer not taken", async (t) => {
  const { ws, run } = tools(t);
  const file = ws.write("src/geo.txt", "import { area } from './shapes';\nconst a = area(2);\n");
  const shapes = Uri.file(ws.write("src/shapes.txt", "export function area(r) {}\n"));
  const ext = languageExtension(t, "plaintext");
  // The server has the file after its outline was asked twice; before that it answers from the open file alone
  // (the import), as TypeScript's partial mode does while the project loads (the in-host test has the real one).
  let outlineAsks = 0;
  const ready = () => outlineAsks > 2;
  const outline = commands.registerCommand("vscode.executeDocumentSymbolProvider", () =>
    ++outlineAsks > 2
      ? [new DocumentSymbol("a", "", SymbolKind.Variable, new Range(1, 6, 1, 7), new Range(1, 6, 1, 7))]
      : [],
  );
  t.after(() => outline.dispose());
  const definitions = provider(t, "vscode.executeDefinitionProvider", 0, () => [
    ready() ? new Location(shapes, new Range(0, 16, 0, 20)) : new Location(Uri.file(file), new Range(0, 9, 0, 13)),
  ]);
  assert.equal(
    text(await run("definition", { path: "src/geo.txt", line: 2, symbol: "area" })),
    "1 definition\nsrc/shapes.txt:1:17: export function area(r) {}",
  );
  assert.equal(ext.activations, 1);
  assert.equal(definitions.asked(), 1, "asked once, when the server had the file");
  assert.equal(outlineAsks, 3);
});

test("no installed extension for the file's language: 'no language support', asked once, no wait", async (t) => {
  const { ws, run } = tools(t);
  ws.write("notes.txt", "area\n");
  extensions.all = [];
  const definitions = provider(t, "vscode.executeDefinitionProvider", Infinity, () => []);
  assert.equal(
    text(await run("definition", { path: "notes.txt", line: 1 })),
    "no language support for notes.txt: no installed extension provides code intelligence for plaintext files (search the text with grep instead)",
  );
  assert.equal(definitions.asked(), 1);
});

test("language features that answer (the outline is there) and no definition: 'no definitions found' at once", async (t) => {
  const { ws, run } = tools(t);
  ws.write("a.txt", "let x = 1;\n");
  languageExtension(t, "plaintext", { active: true });
  const definitions = provider(t, "vscode.executeDefinitionProvider", Infinity, () => []);
  provider(t, "vscode.executeDocumentSymbolProvider", 0, () => [
    new DocumentSymbol("x", "", SymbolKind.Variable, new Range(0, 4, 0, 5), new Range(0, 4, 0, 5)),
  ]);
  assert.equal(text(await run("definition", { path: "a.txt", line: 1, column: 1 })), "no definitions found");
  assert.equal(definitions.asked(), 1);
});

test("language features that never start within the bound: said so, with the bound", async (t) => {
  const { ws, run } = tools(t, 0);
  ws.write("a.txt", "let x = 1;\n");
  languageExtension(t, "plaintext");
  provider(t, "vscode.executeReferenceProvider", Infinity, () => []);
  provider(t, "vscode.executeDocumentSymbolProvider", Infinity, () => []);
  assert.equal(
    text(await run("references", { path: "a.txt", line: 1 })),
    "no references found: the plaintext language features did not answer within 0 s (they may still be starting: ask again)",
  );
});

test("stopped while waiting for the language features: an error saying so (the run marks it cancelled), not 'did not answer within 120 s'", async (t) => {
  const { ws } = tools(t);
  ws.write("a.txt", "no symbols here\n");
  languageExtension(t, "plaintext");
  const stop = new AbortController();
  // The outline never answers (a file with no symbols); the user stops the run while the tool waits.
  let outlineAsks = 0;
  const outline = commands.registerCommand("vscode.executeDocumentSymbolProvider", () => {
    if (++outlineAsks === 2) stop.abort();
    return [];
  });
  t.after(() => outline.dispose());
  const registry = new ToolRegistry(createCodeIntelTools());
  const output = await registry.run("document_symbols", { path: "a.txt" }, ws.ctx({ signal: stop.signal }));
  assert.equal(output.isError, true, "an error: with the signal aborted the run logs it as cancelled");
  assert.equal(text(output), "stopped while waiting for the plaintext language features to start");
});
