import assert from "node:assert/strict";
import { open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import type { SessionEvent } from "../../core/protocol";
import { ActiveLogWriter } from "../../core/storage/write/active-writer";
import type { FileHandleSeam } from "../../core/storage/fs/fs-seam";
import { tempRoot } from "../support/storage/helpers";

const event = (seq: number): SessionEvent =>
  ({ seq, time: seq, type: "user/message", data: { content: [{ type: "text", text: `m${seq}` }] } }) as SessionEvent;

/**
 * A writer over a real file whose writes fail while `failing > 0`; every write attempt
 * is recorded, and each batch outcome (durable or failed) resolves `outcome()`.
 */
async function rig(t: TestContext, options: { flushAttempts?: number } = {}) {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const path = join(tempRoot(t), "active.jsonl");
  const file = await open(path, "w+");
  t.after(() => file.close().catch(() => {}));
  const state = { failing: 0, attempts: 0, gate: undefined as Promise<void> | undefined };
  const handle: FileHandleSeam = {
    write: async (buffer, offset, length, position) => {
      state.attempts++;
      if (state.gate) await state.gate;
      if (state.failing > 0) {
        state.failing--;
        throw Object.assign(new Error("injected write failure"), { code: "EIO" });
      }
      return file.write(buffer, offset, length, position);
    },
    read: (b, o, l, p) => file.read(b, o, l, p),
    sync: () => file.sync(),
    truncate: (len) => file.truncate(len),
    stat: () => file.stat(),
    close: async () => {},
  };
  const waiters: ((kind: string) => void)[] = [];
  const settle = (kind: string) => waiters.splice(0).forEach((w) => w(kind));
  const writer = new ActiveLogWriter(
    { materialise: async () => handle, onDurable: () => settle("durable"), onError: () => settle("failed") },
    { batchWindowMs: 200, retryMs: 50, maxRetryMs: 300, flushAttempts: options.flushAttempts ?? 3 },
    0,
    { handle, size: 0 },
  );
  t.after(() => writer.close());
  const outcome = () => new Promise<string>((r) => waiters.push(r));
  /** Lets promise callbacks and the real file I/O they start run; timers stay frozen. */
  const idle = () => new Promise((r) => setImmediate(r));
  const seqs = async () =>
    (await readFile(path, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).seq as number);
  return { writer, state, outcome, idle, seqs, tick: (ms: number) => t.mock.timers.tick(ms) };
}

test("write-behind: one batch per fixed 200 ms window from the first queued event, not extended by later ones", async (t) => {
  const { writer, state, outcome, idle, seqs, tick } = await rig(t);
  writer.enqueue(event(1));
  tick(150);
  writer.enqueue(event(2));
  tick(49);
  await idle();
  assert.equal(state.attempts, 0, "nothing written before the window ends");
  const done = outcome();
  tick(1);
  assert.equal(await done, "durable");
  assert.equal(state.attempts, 1, "both events in one write");
  assert.deepEqual(await seqs(), [1, 2]);
  assert.equal(writer.queued, 0);
  // An event queued after the batch opens a new window of its own.
  writer.enqueue(event(3));
  tick(199);
  await idle();
  assert.equal(state.attempts, 1);
  const next = outcome();
  tick(1);
  assert.equal(await next, "durable");
  assert.deepEqual(await seqs(), [1, 2, 3]);
});

test("write-behind: a failed batch is retried in the background after 50, 100, 200, then at most 300 ms", async (t) => {
  const { writer, state, outcome, idle, seqs, tick } = await rig(t);
  state.failing = 4;
  writer.enqueue(event(1));
  let result = outcome();
  tick(200);
  assert.equal(await result, "failed");
  for (const wait of [50, 100, 200, 300]) {
    await idle();
    const before = state.attempts;
    tick(wait - 1);
    await idle();
    assert.equal(state.attempts, before, `no retry before ${wait} ms`);
    assert.equal(writer.queued, 1, "the failed batch stays queued");
    result = outcome();
    tick(1);
    assert.equal(await result, wait === 300 ? "durable" : "failed", `retry at ${wait} ms`);
  }
  assert.equal(state.attempts, 5);
  assert.deepEqual(await seqs(), [1]);
  assert.equal(writer.queued, 0);
});

test("write-behind: flush() owns the retries; after it gives up nothing retries until the next append", async (t) => {
  const { writer, state, outcome, idle, seqs, tick } = await rig(t, { flushAttempts: 3 });
  state.failing = 1_000;
  writer.enqueue(event(1));
  writer.enqueue(event(2));
  let failed = outcome();
  const flushed = writer.flush();
  await failed; // attempt 1, at once
  for (const wait of [50, 100]) {
    await idle();
    failed = outcome();
    tick(wait);
    await failed;
  }
  await assert.rejects(flushed, /injected write failure/);
  assert.equal(state.attempts, 3, "the background never retried alongside flush()");
  assert.equal(writer.queued, 2, "the batch is still queued, owned by nobody");
  tick(60_000);
  await idle();
  assert.equal(state.attempts, 3, "no background retry after flush() gave up");
  // The next append resumes the writer: one window, the kept batch first.
  state.failing = 0;
  writer.enqueue(event(3));
  tick(199);
  await idle();
  assert.equal(state.attempts, 3);
  const done = outcome();
  tick(1);
  assert.equal(await done, "durable");
  assert.deepEqual(await seqs(), [1, 2, 3]);
  assert.equal(writer.queued, 0);
});

test("write-behind: the batch being written counts as queued until it is durable", async (t) => {
  const { writer, state, outcome, idle, tick } = await rig(t);
  let open!: () => void;
  state.gate = new Promise((r) => (open = r));
  writer.enqueue(event(1));
  writer.enqueue(event(2));
  tick(200);
  await idle();
  assert.equal(state.attempts, 1, "the write has started");
  assert.equal(writer.queued, 2);
  writer.enqueue(event(3));
  assert.equal(writer.queued, 3);
  const done = outcome();
  open();
  state.gate = undefined;
  assert.equal(await done, "durable");
  assert.equal(writer.queued, 1);
  await writer.flush();
  assert.equal(writer.queued, 0);
});
