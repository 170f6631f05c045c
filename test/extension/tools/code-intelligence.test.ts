import assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import {
  Diagnostic,
  DiagnosticSeverity,
  DocumentSymbol,
  Hover,
  Location,
  Position,
  Range,
  SymbolInformation,
  SymbolKind,
} from "../../support/vscode-fake/editor";
import { Uri, commands } from "../../support/vscode-fake/index";
import { editorWorkspace, text } from "./helpers";

const SOURCE = "export function area(r: number) {\n  return Math.PI * r * r;\n}\nconst a = area(2);\n";

/** Registers a fake language provider command for the test, recording what it was asked. */
function provider(t: { after(fn: () => unknown): void }, id: string, answer: (...args: any[]) => unknown) {
  const calls: unknown[][] = [];
  const reg = commands.registerCommand(id, (...args: unknown[]) => {
    calls.push(args);
    return answer(...args);
  });
  t.after(() => reg.dispose());
  return calls;
}

describe("code intelligence through VS Code's providers", () => {
  it("definition and references at a 1-based line and column, as path:line:col with the source line", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/geo.ts", SOURCE);
    const uri = Uri.file(file);
    const asked = provider(t, "vscode.executeDefinitionProvider", () => [
      { targetUri: uri, targetRange: new Range(0, 0, 2, 1), targetSelectionRange: new Range(0, 16, 0, 20) },
    ]);
    provider(t, "vscode.executeReferenceProvider", () => [
      new Location(uri, new Range(0, 16, 0, 20)),
      new Location(uri, new Range(3, 10, 3, 14)),
    ]);
    assert.equal(
      text(await ws.run("definition", { path: "src/geo.ts", line: 4, column: 12 })),
      "1 definition\nsrc/geo.ts:1:17: export function area(r: number) {",
    );
    const [askedUri, pos] = asked[0] as [Uri, Position];
    assert.equal(askedUri.fsPath, file);
    assert.deepEqual([pos.line, pos.character], [3, 11], "1-based in, 0-based to VS Code");
    assert.equal(
      text(await ws.run("references", { path: "src/geo.ts", line: 4, symbol: "area" })),
      "2 references\nsrc/geo.ts:1:17: export function area(r: number) {\nsrc/geo.ts:4:11: const a = area(2);",
    );
  });

  it("a symbol name finds its position: the file's outline first, the workspace's symbols without a path", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/geo.ts", SOURCE);
    const uri = Uri.file(file);
    const fn = new DocumentSymbol("area", "", SymbolKind.Function, new Range(0, 0, 2, 1), new Range(0, 16, 0, 20));
    provider(t, "vscode.executeDocumentSymbolProvider", () => [fn]);
    provider(t, "vscode.executeWorkspaceSymbolProvider", (q: string) => [
      new SymbolInformation(q, SymbolKind.Function, "", new Location(uri, new Range(0, 16, 0, 20))),
      new SymbolInformation(
        q,
        SymbolKind.Function,
        "",
        new Location(Uri.file(path.join(ws.outside, "x.ts")), new Range(0, 0, 0, 1)),
      ),
    ]);
    const hovered = provider(t, "vscode.executeHoverProvider", () => [
      new Hover([{ language: "typescript", value: "function area(r: number): number" } as never, "Area of a circle."]),
    ]);
    const hover = text(await ws.run("hover", { path: "src/geo.ts", symbol: "area" }));
    assert.equal(hover, "```typescript\nfunction area(r: number): number\n```\n\nArea of a circle.");
    assert.deepEqual([(hovered[0]![1] as Position).line, (hovered[0]![1] as Position).character], [0, 16]);
    await ws.run("hover", { symbol: "area" });
    assert.deepEqual([(hovered[1]![1] as Position).line, (hovered[1]![1] as Position).character], [0, 16]);
    assert.equal(
      text(await ws.run("document_symbols", { path: "src/geo.ts" })),
      "src/geo.ts: 1 symbol\nfunction area  (line 1)",
    );
    assert.equal(
      text(await ws.run("workspace_symbols", { query: "area" })),
      "1 symbol\nfunction area  src/geo.ts:1:17: export function area(r: number) {",
    );
    const bad = await ws.run("definition", { path: "src/geo.ts" });
    assert.match(text(bad), /give line \(and column\) or symbol/);
    assert.match(
      text(await ws.run("definition", { path: "src/geo.ts", symbol: "nowhere" })),
      /nowhere does not occur in src\/geo.ts/,
    );
  });

  it("results are capped", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("a.ts", "x\n");
    provider(t, "vscode.executeReferenceProvider", () =>
      Array.from({ length: 250 }, () => new Location(Uri.file(file), new Position(0, 0))),
    );
    const out = await ws.run("references", { path: "a.ts", line: 1 });
    assert.equal(out.truncated, true);
    assert.match(text(out), /^250 references\n/);
    assert.match(text(out), /\[150 more not shown\]$/);
  });

  it("diagnostics of a file or of the workspace: severity, range, message, source", async (t) => {
    const ws = editorWorkspace(t);
    const a = ws.write("src/a.ts", "x\n");
    const b = ws.write("src/b.ts", "y\n");
    const err = new Diagnostic(new Range(4, 2, 4, 9), "Cannot find name 'foo'.", DiagnosticSeverity.Error);
    err.source = "ts";
    err.code = 2304;
    const warn = new Diagnostic(new Range(0, 0, 0, 1), "unused", DiagnosticSeverity.Warning);
    const hint = new Diagnostic(new Range(0, 0, 0, 1), "could be const", DiagnosticSeverity.Hint);
    ws.editor.setDiagnostics(Uri.file(a), [warn, err, hint]);
    ws.editor.setDiagnostics(Uri.file(b), [warn]);
    ws.editor.setDiagnostics(Uri.file(path.join(ws.outside, "secret.txt")), [err]);
    assert.equal(
      text(await ws.run("diagnostics", { path: "src/a.ts" })),
      "2 problems in src/a.ts\nsrc/a.ts:5:3 error ts(2304): Cannot find name 'foo'.\nsrc/a.ts:1:1 warning: unused",
    );
    assert.equal(
      text(await ws.run("diagnostics", { severity: "error" })),
      "1 problem in the workspace\nsrc/a.ts:5:3 error ts(2304): Cannot find name 'foo'.",
    );
    assert.match(text(await ws.run("diagnostics", { severity: "all" })), /^4 problems in the workspace\n/);
    assert.equal(text(await ws.run("diagnostics", { path: "src/b.ts", severity: "error" })), "no errors in src/b.ts");
  });
});
