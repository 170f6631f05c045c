/**
 * The first five minutes' figures (issue 19) against a floor, in one run, in a real VS Code
 * (code-server + Chromium): bench/host/floor-chat-extension is a webview chat that makes the
 * same trips with nothing of ours in between (one streamed request per Send; Connect lists the
 * server's models, stores the key in SecretStorage, writes a user setting, names the model in
 * the status bar). Each sample is a fresh code-server with a fresh user-data folder; the cases
 * are interleaved so load drifts hit them alike.
 *   - view open → chat ready: click on the activity-bar icon → the Message box enabled (the
 *     activation included: neither extension is active before);
 *   - first message → first token: the message typed at 20 keys a second, then Enter in the
 *     Message box (for us with no session open, so the session is created too) → the first
 *     answer text on screen;
 *   - Connect → ready: click on Connect (Base URL, Model and API key filled) → the status bar
 *     names the model (for us with no provider configured: the chat's connect form).
 * Wall-clock times through Playwright, the same way for both, so compare the ratios.
 *   npm run build && node --import tsx bench/host/first-figures.ts [runs=3]
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, existsSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { FrameLocator, Locator, Page } from "playwright-core";
import { PROJECT_ROOT, remoteUri, workbenchUrl } from "../../test/support/workbench/code-server";
import { gotoWorkbench, missingVsCode, openWorkbench } from "../../test/support/workbench/open-workbench";
import { startProviderServer, wire } from "../../test/support/provider-server";
import { fmt, median, table } from "../stats";

const runs = Number(process.argv[2] ?? 3);
const ANSWER = "article.message.assistant .markdown";
const FLOOR = join(PROJECT_ROOT, "bench", "host", "floor-chat-extension");
const MODEL = "first-model";
const KEY = "sk-first-figures";
const NO_PROVIDER: Record<string, string> = Object.fromEntries(
  [
    "DOWNCITY_PROTOCOL",
    "DOWNCITY_BASE_URL",
    "DOWNCITY_MODEL",
    "DOWNCITY_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
  ].map((k) => [k, ""]),
);

type Figure = "viewReadyMs" | "firstTokenMs" | "connectMs";
/** `hops`: each hop between Enter and the first token, ms after Enter (its first time after Enter). */
type Sample = Partial<Record<Figure, number>> & { hops?: Record<string, number> };

/** When the loopback server had each chat request in full (epoch ms, the clock the hop traces read). */
const arrivals: number[] = [];
const epochNow = () => performance.timeOrigin + performance.now();

/**
 * Hooks in the chat's own document, installed before Enter: when Enter went down, when each host
 * message arrived (a response, by order; an event by its type) and when the first user message and
 * the first answer text were in the DOM (a MutationObserver, so before the next paint).
 */
async function hookWebview(box: Locator, answer: string): Promise<void> {
  await box.evaluate((el, answerSelector) => {
    const w = window as unknown as { __hops: Record<string, number> };
    const hops: Record<string, number> = (w.__hops = {});
    const now = () => performance.timeOrigin + performance.now();
    const first = (name: string) => void (hops[name] ??= now());
    let responses = 0;
    el.addEventListener("keydown", (e) => void ((e as KeyboardEvent).key === "Enter" && first("webview Enter")), {
      capture: true,
    });
    window.addEventListener("message", (e) => {
      if (hops["webview Enter"] === undefined) return;
      const m = e.data as {
        kind?: string;
        type?: string;
        event?: { type?: string; event?: { type?: string; event?: { type?: string } } };
      };
      if (m?.kind === "response") first(`webview response ${++responses} in`);
      else if (m?.kind === "event" && m.event?.type === "agent") {
        const inner = m.event.event;
        first(`webview ${inner?.type === "session-event" ? inner.event?.type : inner?.type} in`);
      } else if (m?.type === "token") first("webview draft in");
    });
    new MutationObserver(() => {
      if (hops["webview Enter"] === undefined) return;
      if (document.querySelector("article.message.user")) first("webview user message shown");
      if (Array.from(document.querySelectorAll(answerSelector)).some((n) => /\S/.test(n.textContent ?? ""))) {
        if (hops["webview first token shown"] === undefined)
          // The frame that paints it: its animation-frame callback, then the task after it.
          requestAnimationFrame(() => setTimeout(() => first("webview first token painted")));
        first("webview first token shown");
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  }, answer);
}

/** The hops of one sample, ms after Enter: the webview's, the host's trace file's, the loopback server's. */
async function readHops(box: Locator, traceFile: string): Promise<Record<string, number>> {
  // The painted hop lands a frame after the text does (bounded: a frame that never comes leaves it out).
  const inView = await box.evaluate(
    () =>
      new Promise<Record<string, number>>((resolve) => {
        const hops = (window as unknown as { __hops: Record<string, number> }).__hops;
        const until = performance.now() + 2_000;
        const check = () =>
          hops["webview first token painted"] !== undefined || performance.now() > until
            ? resolve(hops)
            : setTimeout(check, 5);
        check();
      }),
  );
  const enter = inView["webview Enter"];
  if (enter === undefined) throw new Error("the webview saw no Enter");
  const all: [string, number][] = Object.entries(inView);
  if (existsSync(traceFile))
    for (const line of readFileSync(traceFile, "utf8").split("\n").filter(Boolean)) {
      const { hop, t } = JSON.parse(line) as { hop: string; t: number };
      all.push([`host ${hop}`, t]);
    }
  const served = arrivals.find((t) => t >= enter);
  if (served !== undefined) all.push(["server request in", served]);
  const hops: Record<string, number> = {};
  for (const [name, t] of all) if (t >= enter && hops[name] === undefined) hops[name] = t - enter;
  return hops;
}

/** The visible webview of `extensionId` (outer iframe, then VS Code's active-frame). */
const webview = (page: Page, extensionId: string): FrameLocator =>
  page
    .locator(`iframe.webview.ready[src*="extensionId=${extensionId}"]`)
    .filter({ visible: true })
    .first()
    .contentFrame()
    .frameLocator("iframe#active-frame");

async function openOn(out: string, extension: string, workspace: string, env: Record<string, string>) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const workbench = await openWorkbench(out, { env });
  await workbench.browser.addInitScript({ content: "window.__name = (f) => f;" });
  await gotoWorkbench(
    workbench.page,
    workbenchUrl(workbench.server, workspace, [["extensionDevelopmentPath", remoteUri(workbench.server, extension)]]),
  );
  await workbench.page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 120_000 });
  return workbench;
}

/** ms from the click on the activity-bar icon `label` until `ready` resolves. */
async function timeClick(page: Page, label: string, ready: () => Promise<unknown>): Promise<number> {
  const icon = page.locator(`.part.activitybar .action-item a.action-label[aria-label^="${label}"]`);
  await icon.waitFor({ timeout: 120_000 });
  const t0 = performance.now();
  await icon.click();
  await ready();
  return performance.now() - t0;
}

/** Types the first message at 20 keys a second, as a user would: what runs in the background meanwhile (the SDK warm-up) has that time. */
async function typeLikeAUser(page: Page, box: Locator): Promise<void> {
  await box.click();
  await page.keyboard.type("Which module restocks items?", { delay: 50 });
}

async function timed(act: () => Promise<unknown>, done: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await act();
  await done();
  return performance.now() - t0;
}

async function floorSample(out: string, workspace: string, baseURL: string): Promise<Sample> {
  const trace = join(out, "hops.jsonl");
  const workbench = await openOn(out, FLOOR, workspace, {
    DOWNCITY_BASE_URL: baseURL,
    DOWNCITY_MODEL: MODEL,
    DOWNCITY_API_KEY: KEY,
    DOWNCITY_HOP_TRACE: trace,
  });
  try {
    const { page } = workbench;
    const chat = () => webview(page, "downcity-bench.floor-chat");
    const box = () => chat().getByRole("textbox", { name: "Message", exact: true });
    const viewReadyMs = await timeClick(page, "Floor Chat", () => box().waitFor({ timeout: 120_000 }));
    await typeLikeAUser(page, box());
    await hookWebview(box(), "p.answer");
    const firstTokenMs = await timed(
      () => box().press("Enter"),
      () => chat().locator("p.answer", { hasText: /\S/ }).waitFor({ timeout: 60_000 }),
    );
    const hops = await readHops(box(), trace);
    await chat().getByRole("textbox", { name: "Base URL" }).fill(baseURL);
    await chat().getByRole("textbox", { name: "Model" }).fill(MODEL);
    await chat().getByLabel("API key").fill(KEY);
    const connectMs = await timed(
      () => chat().getByRole("button", { name: "Connect" }).click(),
      () =>
        page
          .locator(".part.statusbar .statusbar-item", { hasText: `Floor: ${MODEL}` })
          .first()
          .waitFor({ timeout: 60_000 }),
    );
    return { viewReadyMs, firstTokenMs, connectMs, hops };
  } finally {
    await workbench.close();
  }
}

async function usChatSample(out: string, workspace: string, baseURL: string): Promise<Sample> {
  const trace = join(out, "hops.jsonl");
  const workbench = await openOn(out, PROJECT_ROOT, workspace, {
    DOWNCITY_PROTOCOL: "openai-chat",
    DOWNCITY_BASE_URL: baseURL,
    DOWNCITY_MODEL: MODEL,
    DOWNCITY_API_KEY: KEY,
    DOWNCITY_HOP_TRACE: trace,
  });
  try {
    const { page } = workbench;
    const chat = () => webview(page, "downcity.downcity-vscode");
    const box = () => chat().getByRole("textbox", { name: "Message", exact: true });
    const viewReadyMs = await timeClick(page, "Downcity", async () => {
      await box().waitFor({ timeout: 120_000 });
      if (!(await box().isEnabled())) throw new Error("the Message box is disabled with no session open");
    });
    await typeLikeAUser(page, box());
    await hookWebview(box(), ANSWER);
    const firstTokenMs = await timed(
      () => box().press("Enter"),
      () => chat().locator(ANSWER, { hasText: /\S/ }).first().waitFor({ timeout: 60_000 }),
    );
    return { viewReadyMs, firstTokenMs, hops: await readHops(box(), trace) };
  } finally {
    await workbench.close();
  }
}

async function usConnectSample(out: string, workspace: string, baseURL: string): Promise<Sample> {
  const workbench = await openOn(out, PROJECT_ROOT, workspace, NO_PROVIDER);
  try {
    const { page } = workbench;
    const chat = () => webview(page, "downcity.downcity-vscode");
    const base = () => chat().getByRole("textbox", { name: "Base URL", exact: true });
    await timeClick(page, "Downcity", () => base().waitFor({ timeout: 120_000 }));
    await base().fill(baseURL);
    await base().press("Tab");
    const model = chat().getByRole("combobox", { name: "Model", exact: true });
    await model.locator("option", { hasText: MODEL }).waitFor({ state: "attached", timeout: 60_000 });
    await model.selectOption(MODEL);
    await chat().getByLabel("API key", { exact: true }).fill(KEY);
    const connectMs = await timed(
      () => chat().getByRole("button", { name: "Connect", exact: true }).click(),
      async () => {
        await base().waitFor({ state: "detached", timeout: 60_000 });
        await page.locator(".part.statusbar .statusbar-item", { hasText: MODEL }).first().waitFor({ timeout: 60_000 });
      },
    );
    return { connectMs };
  } finally {
    await workbench.close();
  }
}

async function main() {
  const missing = missingVsCode();
  if (missing) throw new Error(missing);
  if (!existsSync(join(PROJECT_ROOT, "dist", "extension.js")))
    throw new Error("dist/extension.js is missing: npm run build first");
  const base = realpathSync(mkdtempSync(join(tmpdir(), "downcity-first-figures-")));
  const provider = await startProviderServer(({ path }) =>
    path.endsWith("/models")
      ? { json: { object: "list", data: [{ id: MODEL }] } }
      : (arrivals.push(epochNow()),
        {
          sse: wire.openaiChat({
            model: MODEL,
            usage: { input: 120, output: 20 },
            text: "The inventory module restocks items per SKU.",
          }),
        }),
  );
  const floor: Sample[] = [];
  const us: Sample[] = [];
  const loadBefore = loadavg()[0]!;
  try {
    for (let r = 0; r < runs; r++) {
      const workspace = (name: string) => {
        const dir = join(base, `ws-${r}-${name}`);
        mkdirSync(join(dir, "src"), { recursive: true });
        writeFileSync(
          join(dir, "src", "inventory.ts"),
          "export const restock = (sku: string, amount: number) => amount;\n",
        );
        return dir;
      };
      const f = await floorSample(join(base, `out-${r}-floor`), workspace("floor"), provider.baseURL);
      console.error(`run ${r + 1}/${runs} floor: ${JSON.stringify(f)}`);
      const chat = await usChatSample(join(base, `out-${r}-us`), workspace("us"), provider.baseURL);
      const connect = await usConnectSample(join(base, `out-${r}-connect`), workspace("connect"), provider.baseURL);
      console.error(`run ${r + 1}/${runs} us: ${JSON.stringify({ ...chat, ...connect })}`);
      floor.push(f);
      us.push({ ...chat, ...connect });
    }
  } finally {
    await provider.close();
    rmSync(base, { recursive: true, force: true });
  }
  const pick = (xs: Sample[], k: Figure) => xs.map((s) => s[k]).filter((x): x is number => x !== undefined);
  const range = (xs: number[]) => `${fmt(median(xs), 0)} (${fmt(Math.min(...xs), 0)}–${fmt(Math.max(...xs), 0)})`;
  const rows = (
    [
      ["view open → chat ready", "viewReadyMs"],
      ["first message → first token", "firstTokenMs"],
      ["Connect → ready", "connectMs"],
    ] as const
  ).map(([name, k]) => [
    `${name} (ms)`,
    range(pick(floor, k)),
    range(pick(us, k)),
    `${fmt(median(pick(us, k)) / median(pick(floor, k)), 2)}×`,
  ]);
  console.log(
    `\nFirst five minutes in code-server, ${runs} samples each (median, min–max); load average ${loadBefore.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}\n`,
  );
  table(["", "floor (floor-chat-extension)", "us", "us / floor (medians)"], rows);
  console.log("\nSend → first token, hop by hop: ms after Enter (median over the samples, min–max)\n");
  table(["hop", "floor", "us"], hopRows(floor, us));
}

/** Every hop either side saw, in the order of their medians (us first, then the floor's own). */
function hopRows(floor: Sample[], us: Sample[]): string[][] {
  const at = (xs: Sample[], name: string) => xs.map((s) => s.hops?.[name]).filter((x): x is number => x !== undefined);
  const names = new Set([...us, ...floor].flatMap((s) => Object.keys(s.hops ?? {})));
  const order = (name: string) => median(at(us, name).length ? at(us, name) : at(floor, name));
  const cell = (xs: number[]) =>
    xs.length ? `${fmt(median(xs), 0)} (${fmt(Math.min(...xs), 0)}–${fmt(Math.max(...xs), 0)})` : "";
  return [...names]
    .sort((a, b) => order(a) - order(b))
    .map((name) => [name, cell(at(floor, name)), cell(at(us, name))]);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
