import assert from "node:assert/strict";
import { test } from "node:test";
import { makeWorkspace, text } from "./fixtures";

test("a catastrophic pattern in the JS grep is stopped at its time limit while the main thread keeps serving timers", async (t) => {
  const ws = makeWorkspace({ ripgrep: false, grepTimeLimitMs: 400 });
  t.after(() => ws.cleanup());
  // (a+)+$ backtracks exponentially on a run of a's that does not end the line.
  await ws.write("big.txt", `${"a".repeat(40)}!\n`.repeat(50_000));
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  t.after(() => clearInterval(timer));
  const ticksBefore = ticks;
  const out = await ws.run("grep", { pattern: "(a+)+$", path: "big.txt" });
  clearInterval(timer);
  assert.equal(out.isError, true);
  assert.match(text(out), /^the regular expression ran for more than 0\.4 s and was stopped/);
  assert.ok(ticks - ticksBefore >= 1, "timers fired while the pattern ran");
});

test("the JS grep on its worker finds the same lines, honours maxResults and can be cancelled", async (t) => {
  const ws = makeWorkspace({ ripgrep: false });
  t.after(() => ws.cleanup());
  await ws.write("a.txt", "one needle\r\ntwo\nthree needle\n");
  await ws.write("b.txt", "needle again\n");
  assert.equal(
    text(await ws.run("grep", { pattern: "needle" })),
    "a.txt:1:one needle\na.txt:3:three needle\nb.txt:1:needle again",
  );
  const limited = text(await ws.run("grep", { pattern: "needle", maxResults: 2 }));
  assert.match(limited, /^a\.txt:1:one needle\na\.txt:3:three needle\n\[stopped after 2 matching lines/);
  const abort = new AbortController();
  await ws.write("slow.txt", `${"a".repeat(40)}!\n`);
  const running = ws.registry.run("grep", { pattern: "(a+)+$" }, { ...ws.ctx, signal: abort.signal });
  setImmediate(() => abort.abort());
  const cancelled = await running;
  assert.equal(cancelled.isError, true);
});
