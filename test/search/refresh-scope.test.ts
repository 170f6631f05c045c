import assert from "node:assert/strict";
import fs from "node:fs";
import { sep } from "node:path";
import { test } from "node:test";
import { openSearchIndex } from "../../core/runtime/search";
import { searchWorkspace } from "../../core/runtime";
import type { SearchOptions } from "../../core/protocol/search";
import { createStorageContext } from "../../core/storage/context";
import { Sessions } from "../../core/storage";
import { tempDir } from "../support/temp";
import { bruteForce, collect, keyOf, makeCorpus } from "./corpus";

/** Every lstat of this process while `fn` runs (search's checks are synchronous lstat calls). */
async function lstatsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const paths: string[] = [];
  const real = fs.lstatSync;
  const writable = fs as { lstatSync: typeof fs.lstatSync };
  writable.lstatSync = ((path: fs.PathLike, options?: fs.StatSyncOptions) => {
    paths.push(String(path));
    return real(path, options);
  }) as typeof fs.lstatSync;
  try {
    await fn();
  } finally {
    writable.lstatSync = real;
  }
  return paths;
}

const under = (paths: string[], part: string) => paths.filter((p) => p.includes(`${sep}${part}${sep}`));

test("a query checks only the folders it can read: the CLI's per-query check is bounded by --agent and the area", async (t) => {
  const root = tempDir(t);
  const indexDir = tempDir(t, "downcity-index-");
  await makeCorpus(root, { sessions: 24 });
  const ctx = createStorageContext({ root });
  // Built once, as an earlier CLI run leaves it.
  await openSearchIndex(ctx, indexDir).refresh();
  const search = (options: Omit<SearchOptions, "limit">) =>
    collect(searchWorkspace({ root, searchIndexDir: indexDir }, { ...options, limit: 100_000 }));

  // A full check (a new process' index, nothing changed): two lstat calls per session folder, whatever its size.
  const index = openSearchIndex(ctx, indexDir);
  const full = await lstatsDuring(() => index.refresh());
  const folders = index.stats.sessionsChecked;
  assert.equal(folders, 24);
  assert.ok(full.length <= 2 * folders + 8, `${full.length} lstat calls for ${folders} unchanged folders`);

  // `--agent ask` (live sessions only, the CLI's default area): no lstat under the code agent or any archive.
  const askLive = await lstatsDuring(() => search({ query: "alpha", agentId: "ask", area: "sessions" }));
  assert.deepEqual(under(askLive, "code"), []);
  assert.deepEqual(under(askLive, "archived"), []);
  assert.ok(under(askLive, "ask").length > 0);
  // The live area of both agents: no archive is looked at.
  assert.deepEqual(under(await lstatsDuring(() => search({ query: "alpha", area: "sessions" })), "archived"), []);
  // One session's search looks at that folder alone.
  const one = await lstatsDuring(() => search({ query: "alpha", session: { agentId: "code", sessionId: "s-1" } }));
  assert.deepEqual(
    [
      ...new Set(
        one
          .filter((p) => p.includes(`${sep}sessions${sep}`))
          .map((p) => p.split(sep + "sessions" + sep)[1]!.split(sep)[0]),
      ),
    ],
    ["s-1"],
  );

  // Bounded, still exact: a change in scope is seen at once, one out of scope by the next query that reads it.
  const sessions = new Sessions({ root, batchWindowMs: 1 });
  for (const [agentId, sessionId] of [
    ["ask", "s-2"],
    ["code", "s-1"],
  ] as const) {
    const { session } = await sessions.open({ agentId, sessionId });
    session.append("user/message", { content: [{ type: "text", text: `wombat ${agentId}` }] }, { surface: "append" });
    await sessions.flush(session);
  }
  const fresh = sessions.create({ agentId: "ask", id: "new-one" });
  fresh.append("user/message", { content: [{ type: "text", text: "a new wombat" }] }, { surface: "append" });
  await sessions.archive({ agentId: "ask", sessionId: "s-5" });
  await sessions.close();
  for (const q of [
    { query: "wombat", agentId: "ask", area: "sessions" as const },
    { query: "alpha", agentId: "ask", area: "sessions" as const },
    { query: "wombat" },
    { query: "alpha", area: "archived" as const },
    { query: "alpha" },
  ]) {
    const got = (await search(q)).filter((h) => h.location !== "draft").map(keyOf);
    const want = [...(await bruteForce(root, q))].filter(
      (k) => q.agentId === undefined || k.startsWith(`${q.agentId}/`),
    );
    assert.deepEqual(got.sort(), want.sort(), JSON.stringify(q));
  }
});
