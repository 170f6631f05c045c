/**
 * Prints the folder-level import graph of the project's TypeScript (rooms = folders, arrows = imports between them,
 * with counts), the folder cycles, and the largest files. Run: `node --import tsx scripts/import-graph.ts [--depth N]`.
 * Depth 2 (default) names rooms like `core/storage` and `extension/chat`; the record of each architecture round is
 * this output before and after.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const ROOT = resolve(__dirname, "..");
const TOP = ["core", "extension", "webview", "cli", "bench", "scripts", "test"];
const depthArg = process.argv.indexOf("--depth");
const DEPTH = depthArg > 0 ? Number(process.argv[depthArg + 1]) : 2;

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" || name === ".tmp" ? [] : sources(path);
    return /\.(ts|mts|cts)$/.test(name) ? [path] : [];
  });
}

const SPEC = [
  /\b(?:import|export)\s[^'"`;]*?\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*["']([^"']+)["']/g,
  /\b(?:require|import)\s*\(\s*["']([^"']+)["']\s*\)/g,
];

/** The room of a repository-relative path: its first DEPTH folders (a file directly in a top folder is that folder). */
function room(path: string): string {
  const parts = path.split("/");
  return parts.slice(0, Math.min(DEPTH, parts.length - 1)).join("/") || parts[0]!;
}

const edges = new Map<string, Map<string, number>>();
/** File → the project files it imports (to tell a folder loop from a loop of files). */
const fileEdges = new Map<string, Set<string>>();
const lines: Array<{ file: string; lines: number }> = [];

/** The file an import names: as written, with `.ts`, or a folder's index.ts. */
function fileOf(target: string): string {
  for (const candidate of [target, `${target}.ts`, `${target}/index.ts`])
    if (existsSync(join(ROOT, candidate)) && statSync(join(ROOT, candidate)).isFile()) return candidate;
  return target;
}
for (const top of TOP) {
  for (const file of sources(join(ROOT, top))) {
    const rel = relative(ROOT, file).split(sep).join("/");
    const text = readFileSync(file, "utf8");
    lines.push({ file: rel, lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0) });
    const from = room(rel);
    for (const pattern of SPEC) {
      for (const m of text.matchAll(pattern)) {
        const spec = m[1]!;
        if (!spec.startsWith(".")) continue;
        const target = relative(ROOT, resolve(dirname(file), spec))
          .split(sep)
          .join("/");
        if (target.startsWith("node_modules") || target.startsWith("..")) continue;
        // Types are erased: only imports that load a module at run time can make a loop of files.
        const typeOnly =
          /^(?:import|export)\s+type\b/.test(m[0]) || text.slice(Math.max(0, m.index! - 7), m.index) === "typeof ";
        if (!typeOnly) {
          const files = fileEdges.get(rel) ?? new Set<string>();
          files.add(fileOf(target));
          fileEdges.set(rel, files);
        }
        const to = room(
          existsSync(join(ROOT, target)) && statSync(join(ROOT, target)).isDirectory() ? `${target}/index.ts` : target,
        );
        if (to === from) continue;
        const out = edges.get(from) ?? new Map<string, number>();
        out.set(to, (out.get(to) ?? 0) + 1);
        edges.set(from, out);
      }
    }
  }
}

/** Strongly connected components (Tarjan): each with more than one node is a cycle (of folders, or of files). */
function cycles(edges: Map<string, Map<string, number> | Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const nodes = new Set<string>([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])]);
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) found.push(scc.sort());
    }
  };
  for (const v of [...nodes].sort()) if (!index.has(v)) visit(v);
  return found;
}

const product = (r: string) => /^(core|extension|webview|cli)(\/|$)/.test(r);
console.log(`# Folder import graph (depth ${DEPTH})\n`);
for (const from of [...edges.keys()].sort()) {
  const out = [...edges.get(from)!.entries()].sort(([a], [b]) => a.localeCompare(b));
  console.log(`${from} → ${out.map(([to, n]) => `${to}(${n})`).join(", ")}`);
}
const all = cycles(edges);
console.log(`\n# Cycles among product folders (core, extension, webview, cli)\n`);
const productCycles = all.filter((c) => c.every(product));
console.log(productCycles.length ? productCycles.map((c) => c.join(" ⇄ ")).join("\n") : "none");
console.log(`\n# Cycles involving bench/scripts/test\n`);
const other = all.filter((c) => !c.every(product));
console.log(other.length ? other.map((c) => c.join(" ⇄ ")).join("\n") : "none");
const fileCycles = cycles(
  new Map(
    [...fileEdges].filter(([file]) => product(file)).map(([file, to]) => [file, new Set([...to].filter(product))]),
  ),
);
console.log(
  `\n# Run-time cycles among product files (type imports left out; a folder cycle without one is a folder's entry importing its subfolder)\n`,
);
console.log(fileCycles.length ? fileCycles.map((c) => c.join(" ⇄ ")).join("\n") : "none");

console.log(`\n# Summary\n`);
const rooms = new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])]);
const arrows = [...edges.values()].reduce((n, m) => n + m.size, 0);
const imports = [...edges.values()].reduce((n, m) => n + [...m.values()].reduce((a, b) => a + b, 0), 0);
console.log(`rooms: ${rooms.size}; arrows between rooms: ${arrows} (${imports} imports)`);
const twoWay = [...edges]
  .flatMap(([from, out]) =>
    [...out.keys()].filter((to) => from < to && edges.get(to)?.has(from)).map((to) => `${from} ⇄ ${to}`),
  )
  .sort();
console.log(`two-way pairs: ${twoWay.length}${twoWay.length ? `: ${twoWay.join(", ")}` : ""}`);
const hostCore = new Map<string, number>();
for (const [from, out] of edges)
  if (/^(extension|cli)(\/|$)/.test(from))
    for (const [to, n] of out) if (/^core(\/|$)/.test(to)) hostCore.set(to, (hostCore.get(to) ?? 0) + n);
const hostRooms = [...hostCore].sort(([a], [b]) => a.localeCompare(b));
console.log(
  `core rooms the hosts (extension, cli) import: ${hostRooms.length}: ${hostRooms.map(([r, n]) => `${r}(${n})`).join(", ")}`,
);

console.log(`\n# Largest source files (product + bench + scripts; lines)\n`);
for (const { file, lines: n } of lines
  .filter((l) => !l.file.startsWith("test/"))
  .sort((a, b) => b.lines - a.lines)
  .slice(0, 15)) {
  console.log(`${String(n).padStart(5)}  ${file}`);
}
const overFiles = lines.filter((l) => product(l.file) && l.lines > 350).sort((a, b) => b.lines - a.lines);
console.log(`\nproduct files over 350 lines: ${overFiles.map((l) => `${l.file} (${l.lines})`).join(", ") || "none"}`);
const over = lines.filter((l) => !l.file.startsWith("test/") && l.lines > 350).length;
const wide = lines.reduce(
  (max, l) =>
    Math.max(
      max,
      ...readFileSync(join(ROOT, l.file), "utf8")
        .split("\n")
        .map((s) => s.length),
    ),
  0,
);
console.log(`\nsource files over 350 lines: ${over}; widest line in the repository's TypeScript: ${wide} characters`);
