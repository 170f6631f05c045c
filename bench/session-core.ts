// In-memory session core: append throughput and per-step deriveMessages() cost at
// 2k / 10k / 50k-event histories. Run: node --import tsx bench/session-core.ts
import { Session } from "../core/session";
import { fmt, median, table, timeMs } from "./stats";

const text = (n: number) => "x".repeat(n);

/** One agent step as the loop writes it: 6 events, 2 of them on the Surface. */
function appendStep(session: Session, i: number): void {
  session.append("step/start", { step: i });
  session.append(
    "assistant/message",
    {
      content: [
        { type: "text", text: text(200) },
        { type: "tool-call", id: `c${i}`, name: "read_file", arguments: { path: `f${i}.ts` } },
      ],
    },
    { surface: "append" },
  );
  session.append("tool/call", { toolCallId: `c${i}`, name: "read_file", arguments: { path: `f${i}.ts` } });
  session.append("tool/approval", { toolCallId: `c${i}`, decision: "approved", by: "policy" });
  session.append(
    "tool/result",
    { toolCallId: `c${i}`, toolName: "read_file", content: [{ type: "text", text: text(400) }] },
    { surface: "append" },
  );
  session.append("step/end", { step: i });
}

function appendThroughput(count: number): number {
  const session = new Session({ id: "bench" });
  const data = { content: [{ type: "text" as const, text: text(200) }] };
  return timeMs(() => {
    for (let i = 0; i < count; i++) session.append("user/message", data, { surface: "append" });
  });
}

function derivePerStep(historyEvents: number, steps: number): { deriveUs: number; stepUs: number } {
  const session = new Session({ id: "bench" });
  let i = 0;
  while (session.lastSeq < historyEvents) appendStep(session, ++i);
  session.deriveMessages();
  const derive: number[] = [];
  const step: number[] = [];
  for (let s = 0; s < steps; s++) {
    step.push(timeMs(() => appendStep(session, ++i)) * 1000);
    derive.push(timeMs(() => session.deriveMessages()) * 1000);
  }
  return { deriveUs: median(derive), stepUs: median(step) };
}

const runs = Array.from({ length: 5 }, () => appendThroughput(100_000));
const appendMs = median(runs);
console.log(`## Session core (in memory)\n`);
console.log(
  `100,000 appends: median ${fmt(appendMs, 0)} ms over 5 runs (${fmt(100_000 / (appendMs / 1000), 0)} appends/s)\n`,
);

const sizes = [2_000, 10_000, 50_000];
const results = sizes.map((n) => ({ n, ...derivePerStep(n, 2_000) }));
const base = results[0]!;
table(
  [
    "history (events)",
    "deriveMessages per step (µs, median)",
    "ratio to 2k",
    "append one step, 6 events (µs)",
    "ratio to 2k",
  ],
  results.map((r) => [
    r.n,
    fmt(r.deriveUs),
    fmt(r.deriveUs / base.deriveUs),
    fmt(r.stepUs),
    fmt(r.stepUs / base.stepUs),
  ]),
);
const ratio = results[2]!.deriveUs / base.deriveUs;
console.log(`\nderive 50k / 2k = ${fmt(ratio)} (target ≤ 1.5): ${ratio <= 1.5 ? "met" : "MISSED"}`);
