import assert from "node:assert/strict";
import { test } from "node:test";
import { CompactionConfig } from "../../core/compaction";
import { codePointLength, pruneText } from "../../core/compaction/prune";
import { foldSurface } from "../../core/compaction/fold";
import { selectPrefix } from "../../core/compaction/select";
import type { ToolResultData } from "../../core/protocol";
import { Session } from "../../core/session";
import { user } from "../support/events";

const config = CompactionConfig.parse({});

test("pruning keeps head 4,096 + tail 1,024 code points of a result over 8,192", () => {
  const emoji = "😀"; // two UTF-16 units, one code point
  const text = emoji.repeat(5000) + "MIDDLE" + "z".repeat(5000);
  const pruned = pruneText(text, 8192, 4096, 1024);
  assert.ok(pruned.startsWith(emoji.repeat(4096)));
  assert.ok(!pruned.startsWith(emoji.repeat(4097)));
  assert.ok(pruned.endsWith(`\n\n${"z".repeat(1024)}`));
  assert.match(pruned, /\[… 4886 characters of output folded by compaction …\]/);
  assert.equal(pruneText("short", 8192, 4096, 1024), "short");
  assert.equal(codePointLength(emoji.repeat(3)), 3);
});

function toolStep(session: Session, id: string, output: string, reasoning = ""): { call: number; result: number } {
  const call = session.append(
    "assistant/message",
    {
      content: [
        ...(reasoning ? [{ type: "reasoning" as const, text: reasoning }] : []),
        { type: "tool-call", id, name: "read_file", arguments: { path: "a" } },
      ],
    },
    { surface: "append" },
  ).seq;
  const result = session.append(
    "tool/result",
    { toolCallId: id, toolName: "read_file", content: [{ type: "text", text: output }] },
    { surface: "append" },
  ).seq;
  return { call, result };
}

test("folding replaces oversized tool results and old long reasoning node by node, pairing intact", () => {
  const session = new Session({ id: "s" });
  user(session, "go");
  const first = toolStep(session, "c1", "x".repeat(20_000), "r".repeat(10_000));
  const second = toolStep(session, "c2", "small", "q".repeat(10_000));
  const folded = foldSurface(session, config);
  assert.equal(folded, 2, "the big result and the older reasoning; the newest assistant is left alone");
  const nodes = session.surface.nodes;
  assert.equal(nodes.length, 5);
  const foldedResult = session.event(nodes[2]!)!;
  assert.deepEqual(foldedResult.sources, [first.result]);
  assert.equal((foldedResult.data as ToolResultData).toolCallId, "c1");
  assert.ok((foldedResult.data as ToolResultData).content[0]!.type === "text");
  assert.ok(codePointLength(((foldedResult.data as ToolResultData).content[0] as { text: string }).text) < 5200);
  assert.equal(nodes[3], second.call, "newest assistant message untouched");
  assert.equal(foldSurface(session, config), 0, "folding is idempotent");
});

test("the closed prefix never splits a tool call from its result and keeps the newest assistant", () => {
  const session = new Session({ id: "s" });
  user(session, "task");
  for (let i = 0; i < 10; i++) toolStep(session, `c${i}`, "o".repeat(1000));
  // Keep ~1,500 chars: the cut would land between call c9 and its result; it must move back.
  const selection = selectPrefix(session, 1500)!;
  const keptFirst = session.event(selection.kept[0]!)!;
  assert.equal(keptFirst.type, "assistant/message");
  const keptCalls = new Set(
    selection.kept.flatMap((s) =>
      ((session.event(s)!.data as { content: { type: string; id?: string }[] }).content ?? [])
        .filter((b) => b.type === "tool-call")
        .map((b) => b.id),
    ),
  );
  for (const seq of selection.kept) {
    const e = session.event(seq)!;
    if (e.type === "tool/result") assert.ok(keptCalls.has((e.data as ToolResultData).toolCallId));
  }
  assert.equal(selection.throughSeq, selection.kept[0]! - 1);
  assert.equal(selection.closed.length + selection.kept.length, session.surface.nodes.length);
});

test("a deep selection (keep nothing) still keeps the newest assistant message and what follows", () => {
  const session = new Session({ id: "s" });
  user(session, "task");
  toolStep(session, "a", "1");
  const last = toolStep(session, "b", "2");
  const selection = selectPrefix(session, 0)!;
  assert.deepEqual(selection.kept, [last.call, last.result]);
});
