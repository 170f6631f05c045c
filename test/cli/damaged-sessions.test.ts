import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { sessionPaths } from "../../core/storage/layout";
import { Sessions } from "../../core/storage";
import { tempWorkspace } from "../support/temp";
import { tempDir } from "../support/temp";
import { startProviderServer, wire } from "../support/provider-server";
import { buildCli, cliEnv, runCli } from "./helpers";

before(buildCli);

const ID = "s1";

/** A workspace holding one healthy session of two turns (the `code` agent, which the CLI uses by default). */
async function workspace(t: { after(fn: () => unknown): void }): Promise<string> {
  const root = tempWorkspace(t);
  const sessions = new Sessions({ root, batchWindowMs: 1 });
  const s = sessions.create({ id: ID, agentId: "code" });
  for (const turn of [1, 2]) {
    s.append("turn/start", {});
    s.append("user/message", { content: [{ type: "text", text: `question ${turn}` }] }, { surface: "append" });
    s.append(
      "assistant/message",
      { content: [{ type: "text", text: `answer ${turn}` }], model: "m" },
      { surface: "append" },
    );
    s.append("turn/end", { reason: "completed" });
  }
  await sessions.close();
  return root;
}

/** Each damage a cloned `.downcity/` may arrive with; `id` is the session the commands name. */
const DAMAGES: { name: string; id?: string; damage(root: string, outside: string): void }[] = [
  {
    name: "torn tail",
    damage: (root) => writeFileSync(sessionPaths(root, "code", ID).active, '{"seq":9,"type":"user/mess', { flag: "a" }),
  },
  {
    name: "corrupt middle",
    damage: (root) => {
      const file = sessionPaths(root, "code", ID).active;
      const lines = readFileSync(file, "utf8").split("\n");
      lines[3] = "{not json at all";
      writeFileSync(file, lines.join("\n"));
    },
  },
  { name: "missing log", damage: (root) => rmSync(sessionPaths(root, "code", ID).active) },
  {
    name: "meta a directory",
    damage: (root) => {
      const { meta } = sessionPaths(root, "code", ID);
      rmSync(meta, { force: true });
      mkdirSync(meta);
    },
  },
  {
    name: "active log a symlink outside",
    damage: (root, outside) => {
      const { active } = sessionPaths(root, "code", ID);
      writeFileSync(join(outside, "victim.jsonl"), readFileSync(active));
      rmSync(active);
      symlinkSync(join(outside, "victim.jsonl"), active);
    },
  },
  {
    name: "session folder a symlink outside",
    damage: (root, outside) => {
      const { dir } = sessionPaths(root, "code", ID);
      const copy = join(outside, "session");
      mkdirSync(copy);
      for (const f of readdirSync(dir, { withFileTypes: true }))
        if (f.isFile()) writeFileSync(join(copy, f.name), readFileSync(join(dir, f.name)));
      rmSync(dir, { recursive: true });
      symlinkSync(copy, dir);
    },
  },
  { name: "unknown id", id: "no-such-session", damage: () => {} },
];

const commands = (id: string): string[][] => [
  ["sessions", "list", "--json"],
  ["sessions", "show", id],
  ["sessions", "rename", id, "New title"],
  ["sessions", "fork", id],
  ["sessions", "export", id],
  ["sessions", "compact", id],
  ["run", "--session", id, "hello again"],
  ["sessions", "archive", id],
  ["sessions", "unarchive", id],
  ["sessions", "delete", id],
];

test("no sessions command and no run --session prints a stack trace over a damaged session; a failure is one clear error line", async (t) => {
  const server = await startProviderServer(({ path }) =>
    path.includes("chat")
      ? { sse: wire.openaiChat({ text: "Summary.", usage: { input: 10, output: 5 } }) }
      : { status: 404, json: {} },
  );
  t.after(() => server.close());
  const env = cliEnv(server.baseURL);
  let failures = 0;
  // The damages run side by side (one workspace each); the commands of one run in order.
  await Promise.all(
    DAMAGES.map(async (damage) => {
      const root = await workspace(t);
      const outside = tempDir(t, "downcity-outside-");
      damage.damage(root, outside);
      // In order: archive, unarchive and delete last, so every other command sees the damage.
      for (const args of commands(damage.id ?? ID)) {
        const r = await runCli([...args, "--cwd", root], env);
        const what = `${damage.name}: downcity ${args.join(" ")} (exit ${r.code})\n${r.stderr}`;
        assert.equal(r.signal, null, what);
        assert.doesNotMatch(r.stderr, /^ {4}at /m, `no stack trace: ${what}`);
        if (r.code !== 0) {
          failures++;
          const errors = r.stderr.split("\n").filter((line) => line.startsWith("error:"));
          assert.equal(errors.length, 1, `one error line: ${what}`);
          assert.ok(errors[0]!.length > "error: ".length + 10, `a clear message: ${what}`);
          assert.doesNotMatch(errors[0]!, /\[object|undefined$/, what);
        }
      }
    }),
  );
  assert.ok(failures >= DAMAGES.length, `the damages make commands fail (${failures} failures)`);

  // --verbose may show the stack of what failed.
  const root = await workspace(t);
  const verbose = await runCli(["sessions", "show", "no-such-session", "--cwd", root, "--verbose"], env);
  assert.notEqual(verbose.code, 0);
  assert.match(verbose.stderr, /^error:/m);
});
