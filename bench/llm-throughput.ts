/**
 * Chunk translation + assembly throughput per adapter, without HTTP: a recorded stream
 * (the SDK's parsed SSE events) is fed to each adapter's translator and the neutral
 * chunks to a BlockAssembler. Prints chunks/s (median of runs) and the share of a real
 * stream's time that the layer costs at a typical 100 chunks/s provider rate.
 *
 *   node --import tsx bench/llm-throughput.ts
 */
import { AnthropicTranslator } from "../core/llm/adapters/anthropic-messages/translate";
import { ChatTranslator } from "../core/llm/adapters/openai-chat/translate";
import { ResponsesTranslator } from "../core/llm/adapters/openai-responses/translate";
import { BlockAssembler } from "../core/llm/assembler";
import type { StreamChunk } from "../core/protocol";
import * as wire from "../test/support/wire";

const RUNS = 15;
const text = "The quick brown fox jumps over the lazy dog. ".repeat(400); // ~18k chars
const script: wire.WireScript = {
  reasoning: "Considering the request step by step. ".repeat(100),
  text,
  toolCalls: [
    { id: "call_1", name: "read_file", arguments: { path: "src/index.ts", content: "x".repeat(2000) } },
    { id: "call_2", name: "grep", arguments: { pattern: "TODO", paths: ["src", "test"], context: 3 } },
  ],
  usage: { input: 12_000, output: 6_000 },
  chunkSize: 4, // ~1 token per delta, as providers stream
};

/** What the SDK's stream yields: the parsed JSON of each SSE data line (pings and [DONE] dropped). */
function recorded(frames: string[]): unknown[] {
  const events: unknown[] = [];
  for (const frame of frames) {
    const data = frame
      .split("\n")
      .find((l) => l.startsWith("data: "))
      ?.slice(6);
    if (!data || data === "[DONE]" || frame.startsWith("event: ping")) continue;
    events.push(JSON.parse(data));
  }
  return events;
}

interface Translator {
  translate(event: never, out: StreamChunk[]): void;
  end(out: StreamChunk[]): void;
}

const adapters: Array<{ name: string; events: unknown[]; make: () => Translator }> = [
  { name: "openai-chat", events: recorded(wire.openaiChat(script)), make: () => new ChatTranslator() },
  {
    name: "openai-responses",
    events: recorded(wire.openaiResponses(script)),
    make: () => new ResponsesTranslator("openai-responses:bench", "gpt-5"),
  },
  {
    name: "anthropic-messages",
    events: recorded(wire.anthropic(script)),
    make: () => new AnthropicTranslator("anthropic-messages:bench", "claude-opus-4-1"),
  },
];

function runOnce(events: unknown[], make: () => Translator): { chunks: number; ms: number } {
  const start = process.hrtime.bigint();
  const translator = make();
  const assembler = new BlockAssembler();
  const out: StreamChunk[] = [];
  let chunks = 0;
  for (const event of events) {
    translator.translate(event as never, out);
    for (const c of out) assembler.push(c);
    chunks += out.length;
    out.length = 0;
  }
  translator.end(out);
  for (const c of out) assembler.push(c);
  chunks += out.length;
  if (assembler.message().content.length < 3) throw new Error("assembly went wrong");
  return { chunks, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(`node ${process.version}, ${RUNS} runs per adapter (after 3 warm-up runs)`);
console.log("| adapter | wire events | neutral chunks | median ms | chunks/s | cost at 100 chunks/s |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const { name, events, make } of adapters) {
  for (let i = 0; i < 3; i++) runOnce(events, make);
  const runs = Array.from({ length: RUNS }, () => runOnce(events, make));
  const ms = median(runs.map((r) => r.ms));
  const chunks = runs[0]!.chunks;
  const perSecond = chunks / (ms / 1000);
  // A provider streaming 100 chunks/s takes chunks/100 seconds for this stream.
  const share = (ms / 1000 / (chunks / 100)) * 100;
  console.log(
    `| ${name} | ${events.length} | ${chunks} | ${ms.toFixed(2)} | ${Math.round(perSecond).toLocaleString("en-US")} | ${share.toFixed(4)} % |`,
  );
}
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
