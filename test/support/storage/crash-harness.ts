import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import type { SessionEvent } from "../../../core/protocol";
import { Sessions } from "../../../core/storage";

const repo = resolve(__dirname, "../../..");

/** Bundles the crash child once so each trial starts a plain `node` process fast. */
export async function bundleChild(): Promise<{ file: string; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "downcity-crash-bundle-"));
  const file = join(dir, "crash-writer.cjs");
  await build({
    entryPoints: [join(repo, "test/storage/fixtures/crash-writer.ts")],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["@mongodb-js/zstd"],
    logLevel: "error",
  });
  return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TrialResult {
  ok: boolean;
  /** The kill landed mid-work: after the first acknowledged flush, by our SIGKILL (not an exit or the guard). */
  counted: boolean;
  problems: string[];
  acked: number;
  lastSeq: number;
  actions: string[];
}

/** Runs the child, SIGKILLs it after `killMs`, reopens the session and checks every invariant. */
export async function crashTrial(
  bundle: string,
  seed: number,
  killMs: number,
  deepCheck = true,
  /** The kill clock starts once this seq is acknowledged (0: the first ACK), so deep kills do not depend on the machine's speed. */
  clockAfterSeq = 0,
): Promise<TrialResult> {
  const root = mkdtempSync(join(tmpdir(), "downcity-crash-"));
  const problems: string[] = [];
  try {
    const child = spawn(process.execPath, [bundle, root, String(seed)], {
      env: { ...process.env, NODE_PATH: join(repo, "node_modules") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let stdout = "";
    let scanned = 0;
    let ackedSoFar = 0;
    let timer: NodeJS.Timeout | undefined;
    // The kill clock starts at an acknowledged flush (the first, or seq `clockAfterSeq`), so
    // start-up time and CPU contention do not decide whether or how deep the kill lands.
    child.stdout.on("data", (d) => {
      out += d;
      stdout += d;
      const end = stdout.lastIndexOf("\n") + 1;
      for (const m of stdout.slice(scanned, end).matchAll(/^ACK (\d+)$/gm))
        ackedSoFar = Math.max(ackedSoFar, Number(m[1]));
      scanned = end;
      if (!timer && ackedSoFar > 0 && ackedSoFar >= clockAfterSeq)
        timer = setTimeout(() => child.kill("SIGKILL"), killMs);
    });
    child.stderr.on("data", (d) => (out += d));
    let guarded = false;
    const guard = setTimeout(() => {
      guarded = true;
      child.kill("SIGKILL");
    }, 20_000);
    const signal = await new Promise<NodeJS.Signals | null>((res) => child.on("close", (_code, sig) => res(sig)));
    const counted = timer !== undefined && !guarded && signal === "SIGKILL";
    clearTimeout(timer);
    clearTimeout(guard);
    const lines = out.split("\n");
    if (lines.some((l) => l.startsWith("ERROR")))
      problems.push(`child failed: ${out.slice(out.indexOf("ERROR"), out.indexOf("ERROR") + 600)}`);
    let acked = 0;
    const drafts: string[] = [];
    for (const l of lines) {
      if (l.startsWith("ACK ")) acked = Math.max(acked, Number(l.slice(4)));
      if (l.startsWith("DRAFT ")) drafts.push(l.slice(6));
    }
    if (!lines.includes("READY") || !lines.some((l) => l.startsWith("ACK")))
      return { ok: problems.length === 0, counted, problems, acked, lastSeq: 0, actions: [] };

    const sessions = new Sessions({ root });
    try {
      const { session, report } = await sessions.open({ sessionId: "crash" });
      if (report.readOnly) problems.push(`opened read-only: ${report.readOnly}`);
      if (session.lastSeq < acked) problems.push(`lost acknowledged events: last ${session.lastSeq} < acked ${acked}`);
      // Whole history through paging: contiguous, no duplicates.
      const all: SessionEvent[] = [];
      let page = await sessions.messages({ sessionId: "crash" });
      all.unshift(...page.events);
      for (let guard = 0; page.hasOlder && guard < 10_000; guard++) {
        page = await sessions.messages({ sessionId: "crash" }, { beforeSequence: page.firstSeq });
        all.unshift(...page.events);
      }
      all.forEach((e, i) => {
        if (e.seq !== i + 1) problems.push(`history seq ${e.seq} at position ${i + 1}`);
      });
      if (all.length !== session.lastSeq) problems.push(`history has ${all.length} events, session ${session.lastSeq}`);
      const byDraft = new Map<string, number>();
      for (const e of all) {
        const id = e.type === "assistant/message" ? (e.data as { draftId?: string }).draftId : undefined;
        if (id) byDraft.set(id, (byDraft.get(id) ?? 0) + 1);
      }
      for (const [id, n] of byDraft) if (n > 1) problems.push(`draft ${id} appears ${n} times`);
      const lastDraft = drafts.at(-1);
      if (lastDraft && byDraft.get(lastDraft) !== 1)
        problems.push(`durable draft ${lastDraft} is not in the log exactly once`);
      for (const e of all) {
        const d = e.data as { interrupted?: boolean; draftId?: string };
        // The child never writes interrupted messages: each one was recovered by this open.
        if (
          e.type === "assistant/message" &&
          d.interrupted &&
          !report.actions.some((a) => a.startsWith(`recovered draft ${d.draftId} `))
        ) {
          problems.push(`interrupted ${d.draftId} not in report: ${report.actions.join(" | ")}`);
        }
      }
      // No orphaned tool call on the Surface; no open turn.
      const results = new Set(
        session
          .events()
          .filter((e) => e.type === "tool/result")
          .map((e) => (e.data as { toolCallId: string }).toolCallId),
      );
      for (const seq of session.surface.nodes) {
        const e = session.event(seq)!;
        if (e.type !== "assistant/message") continue;
        for (const b of (e.data as { content: { type: string; id?: string }[] }).content) {
          if (b.type === "tool-call" && !results.has(b.id!)) problems.push(`orphaned tool call ${b.id}`);
        }
      }
      const turns = all.filter((e) => e.type === "turn/start" || e.type === "turn/end");
      if (turns.at(-1)?.type === "turn/start") problems.push("turn left open");
      const actions = report.actions;
      await sessions.close();
      if (!deepCheck) return { ok: problems.length === 0, counted, problems, acked, lastSeq: session.lastSeq, actions };
      // Recovery is complete: a second open repairs nothing.
      const again = new Sessions({ root });
      const second = await again.open({ sessionId: "crash" });
      if (second.report.repaired) problems.push(`second open repaired again: ${second.report.actions.join(" | ")}`);
      if (second.session.lastSeq !== session.lastSeq) problems.push("second open differs");
      for (const item of await again.list()) {
        if (item.sessionId.startsWith("fork-")) {
          const f = await again.open({ sessionId: item.sessionId });
          if (f.report.readOnly) problems.push(`fork ${item.sessionId} read-only: ${f.report.readOnly}`);
        }
      }
      await again.close();
      return { ok: problems.length === 0, counted, problems, acked, lastSeq: session.lastSeq, actions };
    } finally {
      await sessions.close().catch(() => {});
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Runs `trials` with `parallel` at a time; kill times spread over `maxKillMs`. Every
 * `deepEvery`-th trial also checks that a second open repairs nothing and forks open.
 */
/** How deep the deep trials' kill clock starts (crash.test.ts asserts some trial acknowledged more than 20). */
const DEEP_SEQ = 21;

export async function crashTrials(
  bundle: string,
  trials: number,
  parallel: number,
  maxKillMs: number,
  firstSeed = 1,
  deepEvery = 4,
) {
  const failures: { seed: number; killMs: number; problems: string[] }[] = [];
  const stats = {
    trials: 0,
    counted: 0,
    repaired: 0,
    draftsRecovered: 0,
    tornTails: 0,
    compactionsFinished: 0,
    maxAcked: 0,
  };
  let next = 0;
  const worker = async () => {
    while (next < trials) {
      const i = next++;
      const seed = firstSeed + i;
      const killMs = (seed * 7919) % maxKillMs;
      // One trial in four kills after seq 21 at the earliest: some kills land deep in the log on any machine.
      const r = await crashTrial(bundle, seed, killMs, seed % deepEvery === 0, seed % 4 === 1 ? DEEP_SEQ : 0);
      stats.trials++;
      if (r.counted) stats.counted++;
      if (r.actions.length) stats.repaired++;
      if (r.actions.some((a) => a.startsWith("recovered draft"))) stats.draftsRecovered++;
      if (r.actions.some((a) => a.startsWith("truncated torn tail"))) stats.tornTails++;
      if (r.actions.some((a) => a.startsWith("finished an interrupted compaction"))) stats.compactionsFinished++;
      stats.maxAcked = Math.max(stats.maxAcked, r.acked);
      if (!r.ok) failures.push({ seed, killMs, problems: r.problems.slice(0, 5) });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return { failures, stats };
}
