import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { ToolRegistry } from "../../core/tools";
import { isSecretEnvName } from "../../core/tools/env";
import { createNodeTools } from "../../core/tools/node";
import { makeWorkspace, text, type Workspace } from "./fixtures";

/** Polls (bounded) until `pid` no longer runs. A zombie awaiting its reaper counts as dead. */
async function gone(pid: number, tries = 100): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return true;
    } catch {
      /* no procfs: keep polling */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe("run_command", () => {
  let ws: Workspace;
  before(async () => {
    ws = makeWorkspace({ ripgrep: false, command: { killGraceMs: 300, drainMs: 300 } });
    await ws.write("pkg/file.txt", "x");
  });
  after(() => ws.cleanup());

  it("returns exit code, stdout and stderr; runs in cwd inside the root", async () => {
    const out = await ws.run("run_command", { command: "pwd; echo oops >&2; exit 3", cwd: "pkg" });
    const t = text(out);
    assert.equal(out.isError, true, "a non-zero exit is an error result");
    assert.match(t, /^\$ pwd; echo oops >&2; exit 3   \(in pkg\)\nexit code 3\n/);
    assert.match(t, new RegExp(`--- stdout ---\\n${path.join(ws.root, "pkg")}\\n`));
    assert.match(t, /--- stderr ---\noops$/);
    const ok = await ws.run("run_command", { command: "true" });
    assert.equal(ok.isError, undefined);
    assert.match(text(ok), /exit code 0\n--- stdout ---\n\(empty\)/);
  });

  it("uses /bin/sh -c without a login shell and with empty stdin", async () => {
    const out = text(await ws.run("run_command", { command: "echo $0; cat; echo done" }));
    assert.match(out, /--- stdout ---\n\/bin\/sh\ndone\n/);
  });

  it("scrubs secrets from the environment of a real `sh -c env`", async () => {
    const env = {
      PATH: process.env.PATH,
      HOME: "/home/someone",
      OPENAI_API_KEY: "sk-openai",
      ANTHROPIC_API_KEY: "sk-ant",
      ANTHROPIC_BASE_URL: "http://x",
      OPENAI_ORG: "org",
      DOWNCITY_MODEL: "m",
      GITHUB_TOKEN: "ghp",
      AWS_SECRET_ACCESS_KEY: "aws",
      DB_PASSWORD: "pw",
      GOOGLE_APPLICATION_CREDENTIALS: "/c.json",
      NPM_AUTH: "npm",
      my_api_key: "lower",
      HARMLESS: "kept",
    };
    const out = await new ToolRegistry(createNodeTools({ ripgrep: false })).run(
      "run_command",
      { command: "env" },
      { ...ws.ctx, env },
    );
    const vars = new Map(
      text(out)
        .split("--- stdout ---\n")[1]!
        .split("\n--- stderr ---")[0]!
        .split("\n")
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)] as const),
    );
    assert.equal(vars.get("HARMLESS"), "kept");
    assert.equal(vars.get("HOME"), "/home/someone");
    assert.equal(vars.get("GIT_TERMINAL_PROMPT"), "0");
    for (const name of Object.keys(env)) {
      if (!["PATH", "HOME", "HARMLESS"].includes(name)) assert.equal(vars.has(name), false, `${name} must be scrubbed`);
    }
    assert.doesNotMatch(text(out), /sk-openai|sk-ant|ghp|aws|pw\b|lower/);
    assert.equal(isSecretEnvName("LANG"), false);
  });

  // Children sleep far longer than the test timeout, so a kill that does not happen fails the test.
  it("kills the whole process group on timeout, escalating to SIGKILL", { timeout: 30_000 }, async () => {
    // The shell and its children ignore SIGTERM, so only the SIGKILL escalation ends them.
    const pidFile = path.join(ws.root, "bg.pid");
    const out = await ws.run("run_command", {
      command: `trap '' TERM; sleep 300 & echo $! > bg.pid; echo started; wait`,
      timeoutSeconds: 1,
    });
    const t = text(out);
    assert.equal(out.isError, true);
    assert.match(t, /timed out after 1 s; the command and its child processes were killed/);
    assert.match(t, /--- stdout ---\nstarted/);
    const bg = Number(readFileSync(pidFile, "utf8"));
    assert.ok(bg > 0);
    assert.equal(await gone(bg), true, "the background child was killed with the group");
  });

  it("kills the process group when the signal aborts", { timeout: 30_000 }, async () => {
    const controller = new AbortController();
    const registry = new ToolRegistry(createNodeTools({ ripgrep: false, command: { killGraceMs: 300 } }));
    const running = registry.run(
      "run_command",
      { command: "sleep 300 & echo $! > bg2.pid; wait" },
      { ...ws.ctx, signal: controller.signal },
    );
    const pidFile = path.join(ws.root, "bg2.pid");
    for (let i = 0; i < 200; i++) {
      try {
        if (readFileSync(pidFile, "utf8").trim()) break;
      } catch {
        /* not yet */
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    controller.abort();
    const out = await running;
    assert.match(text(out), /cancelled; the command and its child processes were killed/);
    assert.equal(await gone(Number(readFileSync(pidFile, "utf8"))), true);
  });

  it("does not wait forever for background processes that keep the output pipe", async () => {
    // $$ is the shell's pid, which is also its process group id (the tool spawns it detached).
    const out = await ws.run("run_command", { command: "(sleep 5; echo late) & echo $$ > pg.pid; echo now" });
    const t = text(out);
    assert.match(t, /exit code 0/);
    assert.match(t, /--- stdout ---\nnow/);
    assert.match(t, /background processes still hold the output/);
    const group = Number(readFileSync(path.join(ws.root, "pg.pid"), "utf8"));
    try {
      process.kill(-group, "SIGKILL"); // the leftover `sleep 5` this test started
    } catch {
      /* already gone */
    }
  });

  it("caps huge output keeping the start and the end of each stream", async () => {
    const out = await ws.run("run_command", {
      command: "echo FIRST; yes middle | head -c 3000000; echo; echo LAST; echo ERR-END >&2",
    });
    const t = text(out);
    assert.equal(out.truncated, true);
    assert.ok(t.length <= 32_000, `length ${t.length}`);
    assert.match(t, /--- stdout ---\nFIRST\n/);
    assert.match(t, /LAST\n--- stderr ---\nERR-END/);
    assert.match(t, /output truncated|bytes of output dropped/);
  });

  it("refuses a missing cwd or a cwd that is a file", async () => {
    assert.match(
      text(await ws.run("run_command", { command: "true", cwd: "nope" })),
      /nope: no such file or directory/,
    );
    assert.match(text(await ws.run("run_command", { command: "true", cwd: "pkg/file.txt" })), /is not a directory/);
  });

  it("describes itself for approval prompts", () => {
    const tool = ws.registry.get("run_command")!;
    assert.equal(tool.describe!({ command: "npm test", cwd: "pkg" }), "run `npm test` in ./pkg");
    assert.equal(tool.describe!({ command: "ls", cwd: "." }), "run `ls`");
  });
});
