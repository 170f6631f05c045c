/**
 * Extension host: activate() to Sessions tree ready with 10,000 stored sessions, and the
 * tree's cost per change event while a session streams, at 100 / 1,000 / 10,000 sessions.
 * Runs on the unit tests' narrow vscode fake (real store, real files):
 *   node --import tsx --require ./test/support/vscode-fake/register.cjs bench/extension-activation.ts
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, type Dirent } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import type { SessionChange } from "../core/session";
import { encodeId, Sessions } from "../core/storage";
import { Emitter } from "../core/util/emitter";
import { activate, deactivate } from "../extension/activate";
import { useSeams } from "../extension/seams";
import { createWorkspaceRuntime } from "../core/runtime";
import type { SessionNode, SessionTreeNode } from "../extension/sessions/nodes";
import { fakeContext, folder, setFolders } from "../test/support/extension/helpers";
import { fmt, median, table } from "./stats";

/** One real session written by the store, copied `count` times under new ids (meta.json rewritten to match). */
async function makeStore(root: string, count: number): Promise<void> {
  const sessions = new Sessions({ root, metaIntervalMs: 0 });
  const s = sessions.create({ agentId: "code", id: "template" });
  s.append("user/message", { content: [{ type: "text", text: "explain the build" }] }, { surface: "append" });
  s.append(
    "assistant/message",
    { content: [{ type: "text", text: "It bundles with esbuild. ".repeat(40) }], model: "m1" },
    { surface: "append" },
  );
  s.append("session/title", { title: "Explain the build", messageSeqs: [1], source: { kind: "fallback" } });
  await sessions.flush(s);
  await sessions.store.dispose(s);
  await sessions.persistence.release(s);
  await sessions.close();
  const base = join(root, ".downcity", "agents", "code", "sessions");
  const template = join(base, "template");
  const meta = JSON.parse(readFileSync(join(template, "meta.json"), "utf8"));
  const files = (readdirSync(template, { recursive: true, withFileTypes: true }) as Dirent[])
    .filter((e) => e.isFile() && e.name !== "meta.json")
    .map((e) => ({
      rel: relative(template, join(e.parentPath, e.name)),
      data: readFileSync(join(e.parentPath, e.name)),
    }));
  for (let i = 0; i < count; i++) {
    const id = `session-${i}`;
    const dir = join(base, encodeId(id));
    for (const f of files) {
      mkdirSync(dirname(join(dir, f.rel)), { recursive: true });
      writeFileSync(join(dir, f.rel), f.data);
    }
    writeFileSync(
      join(dir, "meta.json"),
      JSON.stringify({ ...meta, sessionId: id, title: `Session ${i}`, updatedAt: meta.updatedAt + i }),
    );
  }
  rmSync(template, { recursive: true });
}

async function activation(root: string, feed?: Emitter<{ c: [SessionChange] }>, coalesceMs?: number) {
  setFolders([folder(root, 0, "bench")]);
  const context = fakeContext();
  const start = process.hrtime.bigint();
  useSeams({
    env: {},
    restAtOnce: true,
    ...(coalesceMs !== undefined && { coalesceMs }),
    factory: (options) => {
      const runtime = createWorkspaceRuntime(options);
      if (feed) {
        const onChange = runtime.onChange.bind(runtime);
        runtime.onChange = (l) => {
          const offs = [onChange(l), feed.on("c", l)];
          return () => offs.forEach((o) => o());
        };
      }
      return runtime;
    },
  });
  const host = await activate(context);
  const top = await host.tree.getChildren();
  for (const node of top.slice(0, 50)) host.tree.getTreeItem(node); // what VS Code renders first
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const close = async () => {
    await deactivate();
    context.subscriptions.forEach((d) => d.dispose());
    setFolders([]);
  };
  return { ms, host, top, close };
}

/** Streaming: the top session's list item changes per event; each refresh is awaited and its rows rendered. */
async function perEvent(root: string, events: number): Promise<{ us: number; rows: number }> {
  const feed = new Emitter<{ c: [SessionChange] }>();
  // A coalescing window of 0: every event is its own refresh (the worst case).
  const { host, top, close } = await activation(root, feed, 0);
  const row = top[0] as SessionNode;
  let rendered = 0;
  let time = row.item.updatedAt;
  const refreshed = () =>
    new Promise<SessionTreeNode[] | SessionTreeNode | undefined>((r) => {
      const d = host.tree.onDidChangeTreeData((e) => (d.dispose(), r(e)));
    });
  // CPU time, not wall time: the wait for the refresh timer is idle, not cost.
  const cpu = process.cpuUsage();
  for (let i = 0; i < events; i++) {
    const next = refreshed();
    feed.emit("c", {
      kind: "updated",
      agentId: "code",
      sessionId: row.item.sessionId,
      item: { ...row.item, updatedAt: ++time, messageCount: i },
    });
    const fired = await next;
    const nodes = fired === undefined ? await host.tree.getChildren() : Array.isArray(fired) ? fired : [fired];
    for (const node of nodes) host.tree.getTreeItem(node);
    rendered += nodes.length;
  }
  const used = process.cpuUsage(cpu);
  const us = (used.user + used.system) / events;
  await close();
  return { us, rows: rendered / events };
}

async function main() {
  const base = mkdtempSync(join(tmpdir(), "downcity-ext-bench-"));
  try {
    const roots: Record<number, string> = {};
    for (const n of [100, 1_000, 10_000]) {
      roots[n] = join(base, `s${n}`);
      await makeStore(roots[n]!, n);
    }
    const rows: (string | number)[][] = [];
    for (const n of [1_000, 10_000]) {
      // The store's own merged list of the same folder, in the same process: the floor of activation.
      const listRuns: number[] = [];
      for (let i = 0; i < 6; i++) {
        const sessions = new Sessions({ root: roots[n]! });
        const t0 = process.hrtime.bigint();
        await sessions.list();
        if (i > 0) listRuns.push(Number(process.hrtime.bigint() - t0) / 1e6);
        await sessions.close();
      }
      rows.push([
        `Sessions.list() alone, ${n.toLocaleString("en-US")} sessions`,
        `${fmt(median(listRuns) / 1000, 3)} s`,
        "the store's merged list: the floor of the row below",
      ]);
      const runs: number[] = [];
      for (let i = 0; i < 6; i++) {
        const { ms, top, close } = await activation(roots[n]!);
        if (i > 0) runs.push(ms); // the first run warms the page cache and the module
        if (top.length !== n) throw new Error(`tree shows ${top.length} of ${n}`);
        await close();
      }
      rows.push([
        `activate() → tree ready, ${n.toLocaleString("en-US")} sessions`,
        `${fmt(median(runs) / 1000, 3)} s`,
        `min ${fmt(Math.min(...runs) / 1000, 3)} · max ${fmt(Math.max(...runs) / 1000, 3)} s (5 runs)`,
      ]);
    }
    const cost: Record<number, { us: number; rows: number }> = {};
    for (const n of [100, 1_000, 10_000]) {
      const samples = [];
      for (let i = 0; i < 3; i++) samples.push(await perEvent(roots[n]!, 2_000));
      cost[n] = { us: median(samples.map((s) => s.us)), rows: samples[0]!.rows };
      rows.push([
        `per streamed event, ${n.toLocaleString("en-US")} sessions`,
        `${fmt(cost[n]!.us, 1)} µs CPU`,
        `${cost[n]!.rows} row(s) refreshed per event`,
      ]);
    }
    rows.push([
      "per-event cost, 10,000 ÷ 100 sessions",
      `${fmt(cost[10_000]!.us / cost[100]!.us, 2)}×`,
      "≈ 1 means independent of the session count",
    ]);
    console.log(`Node ${process.version}, ${process.platform} ${process.arch}`);
    table(["measure", "result", "notes"], rows);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

void main().then(() => process.exit(0));
