import assert from "node:assert/strict";
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { nodeFs } from "../../core/storage/fs/fs-seam";
import { Sessions, sessionPaths } from "../../core/storage";
import { DAY, manySessions } from "../support/many-sessions";
import { countingFs, tempRoot } from "../support/storage/helpers";

const NOW = Date.now() - DAY;
const hoursAgo = (i: number) => NOW - i * 3_600_000;
const ref = (sessionId: string, agentId = "code") => ({ agentId, sessionId });

test("only the named sessions are listed, newest first, each read now, without enumerating the area", async (t) => {
  const root = tempRoot(t);
  const ids = await manySessions(root, 300, hoursAgo);
  const fs = { ...countingFs(), readdirs: 0 };
  fs.readdir = (path) => (fs.readdirs++, nodeFs.readdir(path));
  const sessions = new Sessions({ root, fs });
  const full = await sessions.list({ verifyLogs: true });
  fs.readdirs = 0;
  fs.reads.length = 0;
  const named = [ids[40]!, ids[3]!, ids[250]!, ids[3]!];
  const only = await sessions.list({ verifyLogs: true, sessions: named.map((id) => ref(id)) });
  await sessions.close();
  assert.deepEqual(
    only,
    full.filter((i) => [ids[3], ids[40], ids[250]].includes(i.sessionId)),
    "field for field the full list's items, in its order, each once",
  );
  assert.equal(fs.readdirs, 0, "no folder is enumerated");
  assert.equal(fs.reads.filter((p) => p.endsWith("meta.json")).length, 3, "one meta.json read per session");
});

test("a named session deleted, archived, damaged, linked or of another agent's folder is left out; a newer one not named is not listed", async (t) => {
  const root = tempRoot(t);
  const ids = await manySessions(root, 8, hoursAgo);
  const outside = join(root, "..", `outside-${process.pid}`);
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  rmSync(sessionPaths(root, "code", ids[0]!).dir, { recursive: true });
  mkdirSync(join(root, ".downcity", "agents", "code", "archived"));
  renameSync(sessionPaths(root, "code", ids[1]!).dir, sessionPaths(root, "code", ids[1]!, "archived").dir);
  writeFileSync(sessionPaths(root, "code", ids[2]!).meta, "{ not json");
  rmSync(sessionPaths(root, "code", ids[3]!).active);
  // A session folder that is a link to a copy outside the workspace: never read through.
  renameSync(sessionPaths(root, "code", ids[4]!).dir, outside);
  symlinkSync(outside, sessionPaths(root, "code", ids[4]!).dir);
  // meta.json of ids[5] claims another session's id.
  const moved = sessionPaths(root, "code", ids[5]!).meta;
  writeFileSync(moved, JSON.stringify({ ...JSON.parse(nodeFs.readTextSync(moved)), sessionId: ids[6] }));
  const sessions = new Sessions({ root });
  const hot = sessions.create({ id: "hot-not-named", agentId: "code" });
  hot.append("user/message", { content: [{ type: "text", text: "now" }] }, { surface: "append" });
  const live = await sessions.list({
    verifyLogs: true,
    sessions: [...ids.map((id) => ref(id)), ref(ids[7]!, "ask"), ref("../../x")],
  });
  const archived = await sessions.list({ archived: true, verifyLogs: true, sessions: [ref(ids[1]!)] });
  await sessions.close();
  assert.deepEqual(
    live.map((i) => i.sessionId),
    [ids[6], ids[7]],
    "deleted, archived, damaged, logless, linked and misnamed sessions, another agent's and a hot one not named are left out",
  );
  assert.deepEqual(
    archived.map((i) => [i.sessionId, i.archived]),
    [[ids[1], true]],
  );
});

test("a linked agent folder or area is never listed through", async (t) => {
  const root = tempRoot(t);
  const ids = await manySessions(root, 2, hoursAgo, "ask");
  const agents = join(root, ".downcity", "agents");
  mkdirSync(join(agents, "code"));
  symlinkSync(join(agents, "ask", "sessions"), join(agents, "code", "sessions"));
  const sessions = new Sessions({ root });
  const viaLink = await sessions.list({ sessions: ids.map((id) => ref(id, "code")) });
  const direct = await sessions.list({ sessions: ids.map((id) => ref(id, "ask")) });
  await sessions.close();
  assert.deepEqual(viaLink, []);
  assert.equal(direct.length, 2);
});
