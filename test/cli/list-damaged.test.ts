import assert from "node:assert/strict";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { Sessions } from "../../core/storage";
import { encodeId } from "../../core/storage/id-codec";
import { sessionPaths } from "../../core/storage/layout";
import { tempWorkspace } from "../support/temp";
import { buildCli, runCli } from "./helpers";

before(buildCli);

const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: "1" };

test("downcity sessions list leaves out what is not a session; --damaged shows it with the reason and its path", async (t) => {
  const root = tempWorkspace(t);
  const long = "l".repeat(300);
  const sessions = new Sessions({ root, batchWindowMs: 1 });
  for (const id of ["real", long]) {
    const s = sessions.create({ id, agentId: "code" });
    s.append("user/message", { content: [{ type: "text", text: `hello ${id.slice(0, 4)}` }] }, { surface: "append" });
    s.append("session/title", { title: `Title ${id.slice(0, 4)}`, messageSeqs: [1], source: { kind: "user" } });
  }
  await sessions.close();
  const area = join(root, ".downcity", "agents", "code", "sessions");
  mkdirSync(join(area, "ghost"));
  const hashed = sessionPaths(root, "code", long);
  rmSync(hashed.meta);
  writeFileSync(hashed.idFile, "real");
  // An intact session whose meta.json is a link: listed as itself (rebuilt from its log).
  const linked = sessionPaths(root, "code", "real").meta;
  rmSync(linked);
  symlinkSync("/etc/hostname", linked);

  const normal = await runCli(["sessions", "list", "--json", "--cwd", root], env);
  assert.equal(normal.code, 0, normal.stderr);
  assert.deepEqual(
    (JSON.parse(normal.stdout) as { sessionId: string; title: string }[]).map((i) => [i.sessionId, i.title]),
    [["real", "Title real"]],
  );

  const damaged = await runCli(["sessions", "list", "--damaged", "--json", "--cwd", root], env);
  assert.equal(damaged.code, 0, damaged.stderr);
  assert.deepEqual(
    JSON.parse(damaged.stdout),
    [
      {
        agentId: "code",
        archived: false,
        folder: "ghost",
        reason: "it holds no event log (messages/active.jsonl or a segment)",
        path: join(area, "ghost"),
      },
      {
        agentId: "code",
        archived: false,
        folder: encodeId(long),
        reason: "its session-id file names another session",
        path: hashed.dir,
      },
    ].sort((a, b) => (a.folder < b.folder ? -1 : 1)),
  );

  const text = await runCli(["sessions", "list", "--damaged", "--cwd", root], env);
  assert.match(text.stdout, /^ghost {2}it holds no event log/m);
  assert.doesNotMatch(text.stdout, /Title|real/, "a damaged entry never shows a session's id or title");
  const none = await runCli(["sessions", "list", "--damaged", "--archived", "--cwd", root], env);
  assert.match(none.stdout, /^no damaged archived session folders in /);
  const help = await runCli(["sessions", "--help"], env);
  assert.match(help.stdout, /list --damaged/);
});
