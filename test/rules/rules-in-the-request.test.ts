import assert from "node:assert/strict";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { wire } from "../support/provider-server";
import { startHarness, tempWorkspace } from "../agent/harness";

const system = (body: { messages: { role: string; content: string }[] }) => body.messages[0]!.content;

test("Rules reach the provider's system prompt: the root's at once, a subfolder's once a tool touches it, an edit at the next turn", async (t) => {
  const root = tempWorkspace(t);
  writeFileSync(join(root, "AGENTS.md"), "Root rule: answer in English.");
  mkdirSync(join(root, "pkg"));
  writeFileSync(join(root, "pkg", "AGENTS.md"), "Pkg rule: never touch generated files.");
  writeFileSync(join(root, "pkg", "index.ts"), "export const x = 1;\n");
  let n = 0;
  const h = await startHarness(
    t,
    () => {
      n++;
      if (n === 1)
        return {
          sse: wire.openaiChat({ toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "pkg/index.ts" } }] }),
        };
      return { sse: wire.openaiChat({ text: `answer ${n}` }) };
    },
    { root, runtime: { rules: { files: () => ["CLAUDE.md"], budgetTokens: () => 1_000 } } },
  );
  const ref = { agentId: h.agent.session.agentId, sessionId: h.agent.session.id };
  assert.deepEqual(
    (await h.runtime.rules(ref)).files.map((f) => f.path),
    ["AGENTS.md"],
  );

  h.agent.followUp("look at pkg");
  await h.agent.run();
  const [first, second] = h.bodies();
  assert.match(
    system(first),
    /# Project rules[\s\S]*## AGENTS\.md \(applies to the whole workspace\)\nRoot rule: answer in English\./,
  );
  assert.doesNotMatch(system(first), /Pkg rule/, "pkg/ is not touched before the read");
  assert.match(system(second), /## pkg\/AGENTS\.md \(applies to pkg\/\)\nPkg rule: never touch generated files\./);
  assert.ok(system(second).indexOf("Root rule") < system(second).indexOf("Pkg rule"), "nearest last");
  assert.deepEqual(
    (await h.runtime.rules(ref)).files.map((f) => f.path),
    ["AGENTS.md", "pkg/AGENTS.md"],
  );

  writeFileSync(join(root, "AGENTS.md"), "Root rule, edited: answer in French.");
  writeFileSync(join(root, "CLAUDE.md"), "Claude file.");
  const later = new Date(Date.now() + 5_000);
  utimesSync(join(root, "AGENTS.md"), later, later);
  h.agent.followUp("again");
  await h.agent.run();
  const third = h.bodies()[2];
  assert.match(system(third), /Root rule, edited: answer in French\./);
  assert.match(system(third), /Claude file\./);
  assert.doesNotMatch(system(third), /answer in English/);
});
