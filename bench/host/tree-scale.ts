/**
 * The Sessions tree at scale in a real VS Code (code-server + Chromium), issue 20 item 6.
 * One run prints three cases side by side, each sample in a fresh code-server with a fresh
 * user-data folder, the cases interleaved so load drifts hit them alike:
 *   - floor: bench/host/floor-extension (a tree view and a webview view in a view
 *     container, nothing else): what VS Code itself takes;
 *   - us with 2 sessions;
 *   - us with N sessions (default 10,000, spread over 13 months) + one of 50,000 events.
 * Each sample clicks the view container's activity-bar icon and times, in the page,
 * from that pointerdown to the frame where the Sessions tree's first row is visible; then
 * reads the extension host's RSS (and its peak). For us, it then streams one answer of
 * STREAM_FRAMES frames from a loopback provider and reads the extension host's CPU time
 * over it: per streamed event, which must not grow with the number of sessions. The stream starts
 * once the host is quiet (under 30 ms of CPU in a second): the full list that follows the first
 * rows at 10,000 sessions is one-off work, not a streamed event's.
 *   npm run build && node --import tsx bench/host/tree-scale.ts [runs=3] [sessions=10000] [longEvents=50000]
 * BENCH_TREE_DIR: where the big store is written once and reused (default: a temp folder, removed).
 * BENCH_TREE_CASES=2,3: only those cases (indices into the table's columns).
 * BENCH_TREE_TRACE=dir: also print, per sample, every process's CPU over click → first row, the
 *   extension's hop timeline relative to the click (DOWNCITY_HOP_TRACE: the floor marks its bundle
 *   load, activate and root request too) and each process's CPU totals once the machine settled.
 * BENCH_TREE_RENDERER_PROFILE=dir: also CPU-profile the workbench's renderer (its page and the
 *   same-origin webview frames in it) from the click to the first row: dir/<case>-<run>.renderer.cpuprofile.
 * BENCH_TREE_PROFILE=dir: also CPU-profile the extension host from the click to the first row
 *   (its inspector through the payload's inspect-extensions; node needs --experimental-websocket),
 *   writing dir/<case>-<run>.cpuprofile and printing its top functions.
 * BENCH_TREE_SETTLED=1: click only once the extension host has been quiet for a second (at most 60 s): the workbench's
 *   own start-up (the built-in extensions) then stays out of click → first row, which otherwise makes the floor
 *   bimodal (1.2–1.45 s when the host had settled, 2.7–4.1 s when not; BENCHMARKS.md, round 11). Also prints the
 *   host's RSS and CPU at that moment: what activating after start-up costs a window before any view opens.
 * BENCH_TREE_REVISIT=1: each sample opens the workspace once before (same user data: click, first row, and for us the
 *   rows the Sessions view remembers for the next window, written once its full list is in), closes it, and measures the
 *   second window, with a fresh browser profile so it opens on the Explorer like the first. That is a user's every
 *   start after the first; without it every sample is a workspace's first open.
 * BENCH_TREE_VSIX=1: our extension is packaged (scripts/package-vsix.ts) and installed into each sample's extensions folder,
 *   as a user has it, instead of loaded as a development extension from the repository (the floor stays one).
 * BENCH_TREE_COMPARE=path/to/other.vsix (with BENCH_TREE_VSIX=1): two more cases, ours at 2 and at N sessions from that
 *   VSIX (another commit's `dist/downcity.vsix`), interleaved with the others: a change's effect as a ratio in one run.
 * BENCH_TREE_STREAM_PROFILE=dir: also CPU-profile the extension host over the streamed answer (what a streamed
 *   event costs, and what else runs then): dir/<case>-<run>.stream.cpuprofile (same inspector; the profiler's own
 *   cost is in that sample's CPU per event).
 */
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import {
  freePort,
  installVsix,
  PROJECT_ROOT,
  remoteUri,
  workbenchUrl,
  type CodeServer,
} from "../../test/support/workbench/code-server";
import {
  gotoWorkbench,
  extensionHostPid,
  missingVsCode,
  openWorkbench,
} from "../../test/support/workbench/open-workbench";
import { startProviderServer, wire } from "../../test/support/provider-server";
import { REMEMBERED_FILE } from "../../extension/sessions/remembered-rows";
import { fmt, median, table } from "../stats";
import { startProfiler, summarize, windowSummary, type Profile, type Profiler } from "./cdp-profile";
import { cachedStore, writeStore } from "./tree-scale-store";

const runs = Number(process.argv[2] ?? 3);
const count = Number(process.argv[3] ?? 10_000);
const longEvents = Number(process.argv[4] ?? 50_000);
/** Text frames of the streamed answer (4 characters each, the wire's default chunk). */
const STREAM_FRAMES = 3_000;
const ANSWER = "stream ".repeat((STREAM_FRAMES * 4) / 7).trim();
const FLOOR = join(PROJECT_ROOT, "bench", "host", "floor-extension");
const PAGE_SIZE = 4096;
const TICK_MS = 10; // /proc's clock ticks (USER_HZ = 100)

interface Sample {
  firstRowMs: number;
  /** From the workbench page's navigation to the click (as soon as the view's icon shows): VS Code's start-up to there. */
  clickAtMs: number;
  rssMiB: number;
  peakMiB: number;
  /** Extension-host CPU ms from its start to the first row (where its share of the wait went). */
  hostCpuMs: number;
  /** Extension-host CPU ms per streamed frame (us only). */
  cpuPerEventMs?: number;
  /** How long the extension host took to go quiet before the stream (us only). */
  settleMs?: number;
  /** BENCH_TREE_SETTLED: the extension host's RSS and CPU from its start once quiet, before the click (what a window pays for the extension whether or not its views open). */
  idleRssMiB?: number;
  idleCpuMs?: number;
}

type Case = {
  name: string;
  extension: string;
  workspace: string;
  stream: boolean;
  icon: string;
  copy?: boolean;
  /** Ours installed from this VSIX (BENCH_TREE_VSIX, BENCH_TREE_COMPARE) instead of loaded from the repository. */
  vsix?: string;
};

function procStatus(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? NaN) / 1024; // kB → MiB
}

function cpuMs(pid: number): number {
  // Fields after the command's closing parenthesis: utime is the 14th field, stime the 15th.
  const rest = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(rest[11]) + Number(rest[12])) * TICK_MS;
}

/** Waits until the process `pid` spends under 30 ms of CPU in a second (at most 60 s); resolves with the ms waited. */
async function hostSettled(pid: number): Promise<number> {
  const start = Date.now();
  for (let last = cpuMs(pid); Date.now() - start < 60_000;) {
    await new Promise((r) => setTimeout(r, 1_000));
    const now = cpuMs(pid);
    if (now - last < 30) break;
    last = now;
  }
  return Date.now() - start;
}

/** The extension host's pid once the workbench has started it (at most 60 s). */
async function hostPid(rootPid: number): Promise<number> {
  for (const start = Date.now(); ;) {
    try {
      return extensionHostPid(rootPid);
    } catch (error) {
      if (Date.now() - start > 60_000) throw error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * Clicks the activity-bar icon `label` and resolves with the ms from its pointerdown to
 * the first animation frame in which a row of the view container's Sessions tree is visible.
 */
async function clickToFirstRow(page: Page, label: string): Promise<number> {
  await page.evaluate(() => {
    const w = window as unknown as { __treeScale?: Promise<number> };
    w.__treeScale = new Promise<number>((resolve) => {
      document.addEventListener(
        "pointerdown",
        () => {
          const t0 = performance.now();
          (window as unknown as { __treeScaleT0: number }).__treeScaleT0 = performance.timeOrigin + t0;
          (window as unknown as { __treeScaleClickAt: number }).__treeScaleClickAt = t0;
          const tick = () => {
            const header = Array.from(document.querySelectorAll(".pane-header")).find(
              (h) => /sessions/i.test(h.textContent ?? "") && h.getBoundingClientRect().height > 0,
            );
            const row = header?.closest(".pane")?.querySelector('.monaco-list-row[role="treeitem"]');
            if (row && row.getBoundingClientRect().height > 0) resolve(performance.now() - t0);
            else requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick);
        },
        { capture: true, once: true },
      );
    });
  });
  await page
    .locator(`.part.activitybar .action-item a.action-label[aria-label^="${label}"]`)
    .click({ timeout: 60_000 });
  // Bounded: a click that closed an already open container never draws a row (a sample must fail, not hang).
  return page.evaluate(() =>
    Promise.race([
      (window as unknown as { __treeScale: Promise<number> }).__treeScale,
      new Promise<number>((_, reject) =>
        setTimeout(() => reject(new Error("no Sessions row within 120 s of the click")), 120_000),
      ),
    ]),
  );
}

const PROFILE_DIR = process.env.BENCH_TREE_PROFILE;
const STREAM_PROFILE_DIR = process.env.BENCH_TREE_STREAM_PROFILE;
const RENDERER_PROFILE_DIR = process.env.BENCH_TREE_RENDERER_PROFILE;
/** BENCH_TREE_TRACE=dir: the extension's hop timeline (DOWNCITY_HOP_TRACE) and every process's CPU over click → first row. */
const TRACE_DIR = process.env.BENCH_TREE_TRACE;
const SETTLED = process.env.BENCH_TREE_SETTLED === "1";
const REVISIT = process.env.BENCH_TREE_REVISIT === "1";
/** Where our extension keeps a workspace's remembered rows, in code-server's user data (extension/sessions/remembered-rows.ts). */
const REMEMBERED = join("User", "workspaceStorage");
const MANIFEST = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as {
  publisher: string;
  name: string;
};
const REMEMBERED_IN_STORAGE = join(`${MANIFEST.publisher}.${MANIFEST.name}`, REMEMBERED_FILE);

const VSIX = process.env.BENCH_TREE_VSIX === "1" ? join(PROJECT_ROOT, "dist", "downcity.vsix") : undefined;
const COMPARE = VSIX && process.env.BENCH_TREE_COMPARE ? realpathSync(process.env.BENCH_TREE_COMPARE) : undefined;

/** How the workbench loads a case's extension: as a development extension, unless it is installed from a VSIX. */
function extensionPayload(server: CodeServer, c: Case): [string, string][] {
  return c.vsix ? [] : [["extensionDevelopmentPath", remoteUri(server, c.extension)]];
}

/** BENCH_TREE_REVISIT: the window before the measured one, closed once it remembered its rows (at most 120 s). */
async function previousVisit(c: Case, out: string, env: Record<string, string>, port: number): Promise<void> {
  const workbench = await openWorkbench(out, { env, port });
  try {
    const { page, server } = workbench;
    await workbench.browser.addInitScript({ content: "window.__name = (f) => f;" });
    await gotoWorkbench(page, workbenchUrl(server, c.workspace, extensionPayload(server, c)));
    await page
      .locator(`.part.activitybar .action-item a.action-label[aria-label^="${c.icon}"]`)
      .waitFor({ timeout: 120_000 });
    await clickToFirstRow(page, c.icon);
    // Left on the Explorer, so a restored layout cannot open the measured window on the view (its click would close it).
    await page.keyboard.press("Control+Shift+E");
    await page
      .locator(".pane-header", { hasText: /^\s*(sample|explorer|folders)/i })
      .first()
      .waitFor({ timeout: 30_000 })
      .catch(() => undefined);
    if (c.extension === FLOOR) return;
    const storage = join(workbench.runDir, "user-data", REMEMBERED);
    const written = () =>
      existsSync(storage) && readdirSync(storage).some((d) => existsSync(join(storage, d, REMEMBERED_IN_STORAGE)));
    for (const start = Date.now(); !written();) {
      if (Date.now() - start > 120_000) throw new Error(`no remembered rows under ${storage} after 120 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await workbench.close();
  }
  rmSync(join(out, "run", "chromium-profile"), { recursive: true, force: true });
}

/** CPU ms of every process of a sample: code-server's tree and the Chromium whose profile is under `runDir`. */
function processCpu(rootPid: number, runDir: string): Map<string, number> {
  const rows = execFileSync("ps", ["-e", "-o", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const inTree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows)
      if (!inTree.has(row.pid) && (inTree.has(row.ppid) || row.args.includes(runDir)))
        grew = Boolean(inTree.add(row.pid));
  }
  const out = new Map<string, number>();
  for (const row of rows) {
    if (!inTree.has(row.pid)) continue;
    const type = /--type=([\w-]+)/.exec(row.args)?.[1];
    const name = `${row.pid} ${type ?? row.args.split(" ").slice(0, 3).join(" ").slice(-60)}`;
    try {
      out.set(name, cpuMs(row.pid));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function sample(c: Case, out: string, providerURL: string, profileName?: string): Promise<Sample> {
  const env: Record<string, string> = {
    DOWNCITY_PROTOCOL: "openai-chat",
    DOWNCITY_BASE_URL: providerURL,
    DOWNCITY_MODEL: "e2e-model",
    DOWNCITY_API_KEY: "sk-bench",
  };
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // The same port for both windows: the folder's URI names it, and VS Code keys a workspace's storage by that URI.
  const port = REVISIT ? await freePort() : undefined;
  // openWorkbench's code-server keeps its extensions in out/run/extensions.
  if (c.vsix) await installVsix(join(out, "run"), c.vsix);
  if (port) await previousVisit(c, out, { ...env }, port);
  const hops = TRACE_DIR && join(TRACE_DIR, `${profileName ?? "sample"}.hops`);
  if (hops) {
    mkdirSync(TRACE_DIR!, { recursive: true });
    rmSync(hops, { force: true });
    Object.assign(env, { DOWNCITY_HOP_TRACE: hops });
  }
  const workbench = await openWorkbench(out, { env, ...(port && { port }) });
  try {
    const { page, server } = workbench;
    await workbench.browser.addInitScript({ content: "window.__name = (f) => f;" });
    const payload = extensionPayload(server, c);
    const inspect = (PROFILE_DIR || STREAM_PROFILE_DIR) && profileName ? await freePort() : undefined;
    if (inspect) payload.push(["inspect-extensions", String(inspect)]);
    await gotoWorkbench(page, workbenchUrl(server, c.workspace, payload));
    await page
      .locator(`.part.activitybar .action-item a.action-label[aria-label^="${c.icon}"]`)
      .waitFor({ timeout: 120_000 });
    let idle: Pick<Sample, "idleRssMiB" | "idleCpuMs"> = {};
    if (SETTLED) {
      const pid = await hostPid(server.process.pid!);
      await hostSettled(pid);
      idle = { idleRssMiB: procStatus(pid, "VmRSS"), idleCpuMs: cpuMs(pid) };
    }
    const profiler: Profiler | undefined = inspect && PROFILE_DIR ? await startProfiler(inspect) : undefined;
    const cpuBefore = TRACE_DIR ? processCpu(server.process.pid!, out) : undefined;
    let profileStart = 0;
    let rendererProfile: Profile | undefined;
    const cdp = RENDERER_PROFILE_DIR ? await page.context().newCDPSession(page) : undefined;
    if (cdp) {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 500 });
      await cdp.send("Profiler.start");
      profileStart = await page.evaluate(() => performance.timeOrigin + performance.now());
    }
    const firstRowMs = await clickToFirstRow(page, c.icon);
    if (cdp) {
      const { profile } = (await cdp.send("Profiler.stop")) as unknown as { profile: Profile };
      mkdirSync(RENDERER_PROFILE_DIR!, { recursive: true });
      writeFileSync(join(RENDERER_PROFILE_DIR!, `${profileName}.renderer.cpuprofile`), JSON.stringify(profile));
      console.error(`${profileName} renderer: ${summarize(profile)}`);
      rendererProfile = profile;
    }
    if (profiler)
      console.error(`${profileName}: ${await profiler.stop(join(PROFILE_DIR!, `${profileName}.cpuprofile`))}`);
    if (cpuBefore) {
      trace(
        profileName ?? c.name,
        cpuBefore,
        processCpu(server.process.pid!, out),
        await page.evaluate(() => (window as unknown as { __treeScaleT0: number }).__treeScaleT0),
        firstRowMs,
        rendererProfile && { profile: rendererProfile, start: profileStart },
        profiler?.profile && { profile: profiler.profile, start: profiler.startedAt },
      );
      // Every process's CPU since its start once the machine settled (no process gained 50 ms in 2 s; at most 30 s).
      let last = processCpu(server.process.pid!, out);
      for (let i = 0; i < 15; i++) {
        await new Promise((r) => setTimeout(r, 2_000));
        const now = processCpu(server.process.pid!, out);
        const moved = [...now].some(([k, v]) => v - (last.get(k) ?? 0) > 50);
        last = now;
        if (!moved) break;
      }
      console.error(
        `${profileName}: settled CPU totals: ${[...last]
          .filter(([, v]) => v > 0)
          .map(([k, v]) => `${k.replace(/^\d+ /, "")}=${v}`)
          .join(", ")}`,
      );
    }
    const pid = extensionHostPid(server.process.pid!);
    const result: Sample = {
      firstRowMs,
      clickAtMs: await page.evaluate(() => (window as unknown as { __treeScaleClickAt: number }).__treeScaleClickAt),
      rssMiB: procStatus(pid, "VmRSS"),
      peakMiB: procStatus(pid, "VmHWM"),
      hostCpuMs: cpuMs(pid),
      ...idle,
    };
    if (c.stream) {
      const chat = page
        .locator(`iframe.webview.ready[src*="extensionId=${MANIFEST.publisher}.${MANIFEST.name}"]`)
        .filter({ visible: true })
        .first()
        .contentFrame()
        .frameLocator("iframe#active-frame");
      const box = chat.getByRole("textbox", { name: "Message" });
      await box.waitFor({ timeout: 60_000 });
      await box.fill("Stream a long answer.");
      // One-off work after the first row (at 10,000 sessions the full list's reads) is not a streamed event's cost.
      result.settleMs = await hostSettled(pid);
      const streamProfiler = inspect && STREAM_PROFILE_DIR ? await startProfiler(inspect) : undefined;
      const before = cpuMs(pid);
      await box.press("Enter");
      await chat.locator("article.message.assistant", { hasText: ANSWER.slice(-40) }).waitFor({ timeout: 120_000 });
      await chat.locator('article.message.assistant[aria-busy="true"]').waitFor({ state: "detached", timeout: 60_000 });
      result.cpuPerEventMs = (cpuMs(pid) - before) / STREAM_FRAMES;
      if (streamProfiler) {
        mkdirSync(STREAM_PROFILE_DIR!, { recursive: true });
        const file = join(STREAM_PROFILE_DIR!, `${profileName}.stream.cpuprofile`);
        console.error(`${profileName} stream: ${await streamProfiler.stop(file)}`);
      }
    }
    return result;
  } finally {
    await workbench.close();
  }
}

/** Prints a sample's CPU per process over click → first row and the extension's hops relative to the click. */
function trace(
  name: string,
  before: Map<string, number>,
  after: Map<string, number>,
  t0: number,
  firstRowMs: number,
  renderer?: { profile: Profile; start: number },
  host?: { profile: Profile; start: number },
): void {
  const lines = [`${name}: first row at ${firstRowMs.toFixed(0)} ms; CPU ms over it per process:`];
  for (const [proc, ms] of after) lines.push(`  ${(ms - (before.get(proc) ?? 0)).toFixed(0).padStart(6)}  ${proc}`);
  const file = join(TRACE_DIR!, `${name}.hops`);
  if (existsSync(file)) {
    lines.push(
      `  hops (ms from the click)${renderer || host ? "; after each, what the renderer / extension host did since the one before (ms)" : ""}:`,
    );
    const marks = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { hop: string; t: number });
    marks.push({ hop: "first row (renderer)", t: t0 + firstRowMs });
    let last = t0;
    for (const { hop, t } of marks.sort((a, b) => a.t - b.t)) {
      const did = [renderer && (["renderer", renderer] as const), host && (["host", host] as const)]
        .filter((x) => !!x)
        .map(
          ([who, p]) =>
            `   ${who} [${windowSummary(p.profile, last - p.start, t - p.start, who === "host" ? 5 : 4, who === "host")}]`,
        )
        .join("");
      lines.push(`  ${(t - t0).toFixed(0).padStart(6)}  ${hop}${did}`);
      last = t;
    }
  }
  console.error(lines.join("\n"));
}

async function main() {
  const missing = missingVsCode();
  if (missing) throw new Error(missing);
  if (!existsSync(join(PROJECT_ROOT, "dist", "extension.js")))
    throw new Error("dist/extension.js is missing: npm run build first");
  if (VSIX)
    execFileSync(process.execPath, ["--import", "tsx", "scripts/package-vsix.ts"], {
      cwd: PROJECT_ROOT,
      stdio: "inherit",
    });
  const base = realpathSync(mkdtempSync(join(tmpdir(), "downcity-tree-scale-")));
  const bigRoot = process.env.BENCH_TREE_DIR ?? join(base, "big");
  try {
    const t0 = Date.now();
    await cachedStore(bigRoot, count, longEvents);
    console.error(
      `store of ${count} sessions + one of ${longEvents} events ready in ${((Date.now() - t0) / 1000).toFixed(0)} s (${bigRoot})`,
    );
    const small = join(base, "small");
    await writeStore(small, 2);
    const provider = await startProviderServer(({ path }) =>
      path.endsWith("/models")
        ? { json: { object: "list", data: [{ id: "e2e-model" }] } }
        : { sse: wire.openaiChat({ model: "e2e-model", text: ANSWER }) },
    );
    const big = `${count.toLocaleString("en-US")} sessions + one of ${longEvents.toLocaleString("en-US")} events`;
    // The floor opens the same folders: what VS Code itself does with a folder of 10,000 session folders is not ours.
    // Both 10,000-session cases run on a fresh copy of the store (ours streams into it): VS Code's own crawl of a
    // just-copied folder costs more CPU than of one it saw before, so the floor gets the same preparation.
    const ours = { extension: PROJECT_ROOT, stream: true, icon: "Downcity" };
    const cases: Case[] = [
      { name: "floor, 2-session folder", extension: FLOOR, workspace: small, stream: false, icon: "Floor" },
      { ...ours, name: "us, 2 sessions", workspace: small, vsix: VSIX },
      {
        name: `floor, folder of ${big}`,
        extension: FLOOR,
        workspace: bigRoot,
        stream: false,
        copy: true,
        icon: "Floor",
      },
      { ...ours, name: `us, ${big}`, workspace: bigRoot, vsix: VSIX },
      ...(COMPARE
        ? [
            { ...ours, name: "compared VSIX, 2 sessions", workspace: small, vsix: COMPARE },
            { ...ours, name: `compared VSIX, ${big}`, workspace: bigRoot, vsix: COMPARE },
          ]
        : []),
    ];
    // BENCH_TREE_CASES=2,3: only some cases (indices), to trace or profile them.
    const only = process.env.BENCH_TREE_CASES?.split(",").map(Number);
    const samples = new Map<Case, Sample[]>(cases.map((c) => [c, []]));
    const loadBefore = loadavg()[0]!;
    try {
      for (let r = 0; r < runs; r++) {
        for (const [i, c] of cases.entries()) {
          if (only && !only.includes(i)) continue;
          // The big store is shared by the samples: a sample's own session goes, so each starts from the same store.
          const workspace = c.stream || c.copy ? copyOf(c.workspace, join(base, `ws-${r}-${i}`)) : c.workspace;
          const s = await sample(
            { ...c, workspace },
            join(base, `out-${r}-${i}`),
            provider.baseURL,
            `case${i}-run${r}`,
          );
          if (workspace !== c.workspace) rmSync(workspace, { recursive: true, force: true });
          samples.get(c)!.push(s);
          console.error(`run ${r + 1}/${runs} ${c.name}: ${JSON.stringify(s)}`);
        }
      }
    } finally {
      await provider.close();
    }
    report(cases, samples, loadBefore, loadavg()[0]!);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** A copy of a workspace for one sample (hard links would share the files a sample appends to), mtimes kept. */
function copyOf(from: string, to: string): string {
  cpSync(from, to, { recursive: true, preserveTimestamps: true });
  return to;
}

function report(cases: Case[], samples: Map<Case, Sample[]>, loadBefore: number, loadAfter: number): void {
  const range = (xs: number[], digits: number) =>
    xs.length === 0
      ? "–"
      : `${fmt(median(xs), digits)} (${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)})`;
  const col = (c: Case, pick: (s: Sample) => number | undefined, digits: number) => {
    const xs = samples
      .get(c)!
      .map(pick)
      .filter((x): x is number => x !== undefined);
    return xs.length ? range(xs, digits) : "–";
  };
  const [floorFew, few, floorMany, many] = cases as [Case, Case, Case, Case];
  const med = (c: Case, pick: (s: Sample) => number | undefined) =>
    median(
      samples
        .get(c)!
        .map(pick)
        .filter((x): x is number => x !== undefined),
    );
  console.log(
    `\nSessions tree at scale in code-server, ${runs} samples each (median, min–max)${SETTLED ? ", clicked once the extension host was quiet" : ""}; load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}\n`,
  );
  table(
    ["", ...cases.map((c) => c.name)],
    [
      ["click the view → first row visible (ms)", ...cases.map((c) => col(c, (s) => s.firstRowMs, 0))],
      ["page load → the click, as the view's icon shows (ms)", ...cases.map((c) => col(c, (s) => s.clickAtMs, 0))],
      ["extension host RSS at first row (MiB)", ...cases.map((c) => col(c, (s) => s.rssMiB, 1))],
      ["extension host peak RSS (MiB)", ...cases.map((c) => col(c, (s) => s.peakMiB, 1))],
      ["extension host CPU from start to first row (ms)", ...cases.map((c) => col(c, (s) => s.hostCpuMs, 0))],
      ...(SETTLED
        ? [
            [
              "extension host RSS once quiet, before the click (MiB)",
              ...cases.map((c) => col(c, (s) => s.idleRssMiB, 1)),
            ],
            [
              "extension host CPU once quiet, before the click (ms)",
              ...cases.map((c) => col(c, (s) => s.idleCpuMs, 0)),
            ],
          ]
        : []),
      [
        `extension host CPU per streamed event (ms, ${STREAM_FRAMES} events)`,
        ...cases.map((c) => col(c, (s) => s.cpuPerEventMs, 3)),
      ],
    ],
  );
  if (COMPARE) {
    const [otherFew, otherMany] = [cases[4]!, cases[5]!];
    const row = (c: Case) => med(c, (s) => s.firstRowMs);
    console.log(
      `\nclick → first row, this build against the compared VSIX (same run): ${fmt(row(few), 0)} / ${fmt(row(otherFew), 0)} ms at 2 sessions (${fmt(row(few) / row(otherFew), 2)}×), ${fmt(row(many), 0)} / ${fmt(row(otherMany), 0)} ms at ${count} (${fmt(row(many) / row(otherMany), 2)}×)`,
    );
  }
  const overFloor = med(many, (s) => s.firstRowMs) - med(floorMany, (s) => s.firstRowMs);
  const overFloorFew = med(few, (s) => s.firstRowMs) - med(floorFew, (s) => s.firstRowMs);
  const overFew = med(many, (s) => s.rssMiB) - med(few, (s) => s.rssMiB);
  const cpuRatio = med(many, (s) => s.cpuPerEventMs) / med(few, (s) => s.cpuPerEventMs);
  console.log(
    `\nfirst row: ${fmt(overFloor, 0)} ms over the floor at ${count} sessions, ${fmt(overFloorFew, 0)} ms at 2 (target ≤ 300 ms); host RSS: ${fmt(overFew, 1)} MiB over 2 sessions (target ≤ 20 MiB); CPU per streamed event: ${fmt(cpuRatio, 2)}× the 2-session case (target flat, ≈ 1×)`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
