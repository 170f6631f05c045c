import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { ToolRegistry, type ToolContext, type ToolOutput } from "../../core/tools";
import { createNodeTools } from "../../core/tools/node";

/** A temp workspace (inside `root`) with a sibling folder outside it, removed by `cleanup()`. */
export interface Workspace {
  /** Parent temp dir holding `root` and `outside`. */
  base: string;
  root: string;
  outside: string;
  ctx: ToolContext;
  registry: ToolRegistry;
  write(rel: string, content: string | Buffer): Promise<string>;
  run(name: string, args: unknown): Promise<ToolOutput>;
  cleanup(): void;
}

export function makeWorkspace(options: Parameters<typeof createNodeTools>[0] = { ripgrep: false }): Workspace {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "downcity-tools-")));
  const root = path.join(base, "ws");
  const outside = path.join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  const ctx: ToolContext = { root, signal: new AbortController().signal };
  const registry = new ToolRegistry(createNodeTools(options));
  return {
    base,
    root,
    outside,
    ctx,
    registry,
    async write(rel, content) {
      const file = path.join(root, rel);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
      return file;
    },
    run: (name, args) => registry.run(name, args, ctx),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** The text of a one-part output. */
export function text(out: ToolOutput): string {
  return out.content.map((p) => (p.type === "text" ? p.text : `[${p.type}]`)).join("");
}
