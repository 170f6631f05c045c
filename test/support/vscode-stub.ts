import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Source text for a child `node` that answers `require("vscode")` with stand-ins: every top-level name of the pinned
 * typings (classes, enums, namespaces, functions, constants), each a constructible stub (a bundle's top level only
 * builds classes and constants from them). `extra` is an expression merged over them (e.g. `{ workspace: … }`).
 * Used where the built bundle is loaded outside VS Code: bench/bundle-load.ts, test/build/.
 */
export function vscodeStubSource(root: string, extra = "{}"): string {
  const names = [
    ...readFileSync(join(root, "node_modules", "@types", "vscode", "index.d.ts"), "utf8").matchAll(
      /^\s*export (?:class|enum|namespace|const|function|let) (\w+)/gm,
    ),
  ].map((m) => m[1]!);
  return `
const Module = require("node:module");
const stub = () => new Proxy(class {}, { get: (t, p) => (p in t ? t[p] : stub()) });
const api = Object.assign(Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, stub()])), ${extra});
const loads = [];
const load = Module._load;
Module._load = function (request, ...rest) { loads.push(request); return request === "vscode" ? api : load.call(this, request, ...rest); };
`;
}
