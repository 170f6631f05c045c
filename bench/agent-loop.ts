// The agent loop's own per-step cost over a 2,000-turn session, through the real loop,
// the real tools and the real on-disk store; the provider is an in-process script, so
// its time is not in the figures. Usage grows with the conversation and drives real
// compactions. Run: node --import tsx bench/agent-loop.ts [turns]
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createWorkspaceRuntime } from "../core/runtime";
import { createNodeTools } from "../core/tools/node";
import { ScriptedLlm } from "../test/support/scripted-llm";
import { fmt, median, mib } from "./stats";

const TURNS = Number(process.argv[2] ?? 2000);
const WINDOW = 128_000;
const root = realpathSync(mkdtempSync(join(tmpdir(), "downcity-bench-loop-")));
for (let i = 0; i < 20; i++) writeFileSync(join(root, `file${i}.ts`), `export const value${i} = ${i};\n`.repeat(40));

let compactions = 0;
const llm = new ScriptedLlm((request, index) => {
  if (request.system?.includes("cumulative summary")) {
    compactions++;
    return {
      text: `Summary ${compactions}: ${"the user and the agent read and explained files. ".repeat(30)}`,
      usage: { inputTokens: 5000, outputTokens: 500 },
    };
  }
  // Usage the way a provider reports it: roughly the characters sent / 4.
  const tokens = 1500 + request.messages.length * 450;
  const last = request.messages.at(-1)!;
  const answered = last.content.some((b) => b.type === "tool-result");
  return answered
    ? {
        text: `The file exports a constant. ${"Explanation line. ".repeat(80)}`,
        usage: { inputTokens: tokens, outputTokens: 400 },
      }
    : {
        toolCalls: [{ id: `call_${index}`, name: "read_file", arguments: { path: `file${index % 20}.ts` } }],
        usage: { inputTokens: tokens, outputTokens: 40 },
      };
});

const tools = createNodeTools();
const runtime = createWorkspaceRuntime({
  root,
  llm,
  providers: () => [],
  model: () => ({ provider: "scripted", model: "scripted", contextWindow: WINDOW }),
  approval: () => ({ reads: "auto", edits: "auto", commands: "auto" }),
  tools: () => tools,
});
const session = runtime.create("code", "session-bench");
const ref = { agentId: session.agentId, sessionId: session.id };

async function main(): Promise<void> {
  const perStepUs: number[] = [];
  const rss: number[] = [];
  let peakRss = 0;
  for (let turn = 1; turn <= TURNS; turn++) {
    const start = process.hrtime.bigint();
    const [outcome] = await runtime.prompt(
      ref,
      `Please explain file${turn % 20}.ts to me, turn ${turn}. ${"Some context. ".repeat(10)}`,
    );
    const us = Number(process.hrtime.bigint() - start) / 1000;
    if (outcome!.reason !== "completed") throw new Error(`turn ${turn}: ${outcome!.reason} ${outcome!.error}`);
    perStepUs.push(us / outcome!.steps);
    const now = process.memoryUsage().rss;
    rss.push(now);
    peakRss = Math.max(peakRss, now);
  }
  await runtime.close();

  const window = (from: number) => perStepUs.slice(from, from + 50);
  const early = median(window(9));
  const late = median(window(TURNS - 50));
  console.log(`## Agent loop (${TURNS} turns, 2 steps each, real store and tools, scripted provider)\n`);
  console.log(`| measure | value |\n|---|---|`);
  console.log(`| per-step loop cost, turns 10–59 (median) | ${fmt(early / 1000)} ms |`);
  console.log(`| per-step loop cost, last 50 turns (median) | ${fmt(late / 1000)} ms |`);
  console.log(`| ratio late / early (target ≤ 1.5) | ${fmt(late / early)} |`);
  console.log(`| compactions (usage-triggered) | ${compactions} |`);
  console.log(`| events in memory at the end (Active) | ${session.size} of ${session.lastSeq} |`);
  console.log(
    `| RSS at turn 10 / at the end / peak | ${fmt(mib(rss[9]!), 0)} / ${fmt(mib(rss.at(-1)!), 0)} / ${fmt(mib(peakRss), 0)} MiB |`,
  );
  rmSync(root, { recursive: true, force: true });
}

void main();
