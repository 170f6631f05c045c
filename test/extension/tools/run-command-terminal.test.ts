import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ToolUpdate } from "../../../core/protocol/tool-details";
import { editorWorkspace, groupGone, groupMembers, text, type EditorWorkspace } from "./helpers";

/** Starts a command that leaves a background child, resolves with its process group once it printed it. */
function startLongCommand(
  ws: EditorWorkspace,
  extra: { signal?: AbortSignal; sessionId?: string; agentId?: string } = {},
) {
  const updates: ToolUpdate[] = [];
  let pgidSeen: (pgid: number) => void;
  const pgid = new Promise<number>((resolve) => (pgidSeen = resolve));
  const output = ws.run(
    "run_command",
    { command: "sleep 30 & echo group $$; wait" },
    {
      ...extra,
      onUpdate: (u) => {
        updates.push(u);
        const m = /group (\d+)/.exec(updates.map((x) => x.text).join(""));
        if (m) pgidSeen(Number(m[1]));
      },
    },
  );
  return { pgid, output, updates };
}

describe("run_command in the session's terminal", () => {
  it("streams output live to a terminal named after the session and to the card; returns the core's result", async (t) => {
    const ws = editorWorkspace(t, { sessionLabel: (id) => `Fix the parser (${id})` });
    ws.write("pkg/x", "");
    const updates: ToolUpdate[] = [];
    const out = await ws.run(
      "run_command",
      { command: "echo hello; echo oops >&2; exit 2", cwd: "pkg" },
      { onUpdate: (u) => updates.push(u) },
    );
    assert.equal(ws.editor.terminals.length, 1);
    const term = ws.editor.terminals[0]!;
    assert.equal(term.name, "Downcity: Fix the parser (s1)");
    assert.match(
      term.output,
      /\$ echo hello; echo oops >&2; exit 2.*\(in pkg\)\r\nhello\r\noops\r\n.*\[exit code 2\]/s,
    );
    assert.deepEqual(updates.map((u) => [u.stream, u.text]).sort(), [
      ["stderr", "oops\n"],
      ["stdout", "hello\n"],
    ]);
    assert.equal(out.isError, true);
    assert.match(text(out), /exit code 2\n--- stdout ---\nhello\n--- stderr ---\noops/);
    assert.deepEqual(out.details, {
      kind: "command",
      command: "echo hello; echo oops >&2; exit 2",
      cwd: "pkg",
      exitCode: 2,
      signal: null,
    });
    await ws.run("run_command", { command: "true" });
    assert.equal(ws.editor.terminals.length, 1, "one terminal per session");
  });

  it("a cancelled command leaves no process of its group behind", async (t) => {
    const ws = editorWorkspace(t, { command: { killGraceMs: 300, drainMs: 300 } });
    const abort = new AbortController();
    const run = startLongCommand(ws, { signal: abort.signal });
    const pgid = await run.pgid;
    assert.ok(groupMembers(pgid).length >= 2, "the shell and its background sleep run");
    abort.abort();
    const out = await run.output;
    assert.match(text(out), /cancelled; the command and its child processes were killed/);
    assert.equal(await groupGone(pgid), true);
  });

  for (const [how, stop] of [
    ["closing the terminal", (ws: EditorWorkspace) => ws.editor.terminals[0]!.close()],
    ["Ctrl+C in the terminal", (ws: EditorWorkspace) => ws.editor.terminals[0]!.type("\x03")],
    [
      "disposing the session",
      (ws: EditorWorkspace) => void ws.tools.disposeSession({ agentId: "default", sessionId: "s1" }),
    ],
    ["disposing the tools (extension deactivate)", (ws: EditorWorkspace) => void ws.tools.dispose()],
  ] as const) {
    it(`${how} kills the whole process group`, async (t) => {
      const ws = editorWorkspace(t, { command: { killGraceMs: 300, drainMs: 300 } });
      const run = startLongCommand(ws);
      const pgid = await run.pgid;
      stop(ws);
      assert.match(text(await run.output), /cancelled/);
      assert.equal(await groupGone(pgid), true);
    });
  }

  it("two agents' sessions of the same id get a terminal each: Ctrl+C in one stops that agent's command alone", async (t) => {
    const ws = editorWorkspace(t, { command: { killGraceMs: 300, drainMs: 300 } });
    const code = startLongCommand(ws, { agentId: "code", sessionId: "s1" });
    const codeGroup = await code.pgid;
    const fix = startLongCommand(ws, { agentId: "fix", sessionId: "s1" });
    const fixGroup = await fix.pgid;
    assert.equal(ws.editor.terminals.length, 2, "one terminal per agent's session");
    ws.editor.terminals[0]!.type("\x03");
    assert.match(text(await code.output), /cancelled/);
    assert.equal(await groupGone(codeGroup), true);
    assert.ok(groupMembers(fixGroup).length >= 2, "fix's command of the same session id still runs");
    assert.doesNotMatch(ws.editor.terminals[0]!.output, /group \d+\r\n.*group \d+/s, "each terminal shows its own");
    await ws.tools.disposeSession({ agentId: "fix", sessionId: "s1" });
    assert.match(text(await fix.output), /cancelled/);
    assert.equal(await groupGone(fixGroup), true);
  });

  it("a timeout kills the group and says so in the details", async (t) => {
    const ws = editorWorkspace(t, { command: { killGraceMs: 300, drainMs: 300 } });
    const out = await ws.run("run_command", { command: "sleep 30", timeoutSeconds: 1 });
    assert.equal(out.details?.kind === "command" && out.details.timedOut, true);
    assert.match(ws.editor.terminals[0]!.output, /\[timed out\]/);
  });

  it("the approval preview names the command and its folder, inside the sandbox", async (t) => {
    const ws = editorWorkspace(t);
    ws.write("pkg/x", "");
    const tool = ws.registry.get("run_command")!;
    assert.deepEqual(await tool.preview!({ command: "npm test", cwd: "./pkg" }, ws.ctx()), {
      kind: "command",
      command: "npm test",
      cwd: "pkg",
    });
    await assert.rejects(tool.preview!({ command: "ls", cwd: ".." }, ws.ctx()), /outside the workspace/);
  });
});
