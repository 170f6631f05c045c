// Chat webview in Debian's Chromium: first paint and heap of a 200- vs 2,000-message
// session (Active page + 10 loaded segments), and 5,000 streamed deltas at 200/s with
// per-frame timings. Needs `npm run build` and /usr/bin/chromium.
// Run: node --import tsx bench/webview.ts [deltas]
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import type { ChatPage } from "../core/protocol";
import { conversation, helloWith, launch, openChat, REF, skipReason, snapshot } from "../test/support/webview/harness";
import { fmt, table } from "./stats";

const DELTAS = Number(process.argv[2] ?? 5000);
const RATE = 200;

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

interface Run {
  messages: number;
  fcpMs: number;
  snapshotToRowsMs: number;
  segmentsMs: number;
  domRows: number;
  heapLoadMiB: number;
  heapStreamMiB: number;
  work: number[];
  intervals: number[];
  violations: number;
}

async function run(
  browser: Awaited<ReturnType<typeof launch>>["browser"],
  messages: number,
  deltas: number,
): Promise<Run> {
  const segments = messages > 200 ? 10 : 0;
  const perSegment = segments ? (messages - 200) / segments : 0;
  const activeFirst = segments * perSegment + 1;
  const pages = new Map<number, ChatPage>();
  for (let s = 0; s < segments; s++) {
    const first = s * perSegment + 1;
    pages.set(first + perSegment, {
      events: conversation(first, perSegment),
      firstSeq: first,
      lastSeq: first + perSegment - 1,
      hasOlder: s > 0,
      summary: `Summary through ${first - 1}`,
    });
  }
  const active = conversation(activeFirst, 200);
  const snap = snapshot(active, {
    page: {
      events: active,
      firstSeq: activeFirst,
      lastSeq: activeFirst + 199,
      hasOlder: segments > 0,
      ...(segments ? { summary: `Summary through ${activeFirst - 1}` } : {}),
    },
  });
  const chat = await openChat(
    browser,
    (host) => helloWith(snap)(host).on("loadEarlier", ({ beforeSeq }) => pages.get(beforeSeq)!),
    { viewport: { width: 480, height: 900 } },
  );
  const { page, host } = chat;
  await page.getByText(`Question ${activeFirst + 198}`).waitFor();
  const paint = await page.evaluate(() => ({
    fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN,
    snapshot: performance.getEntriesByName("downcity:snapshot")[0]?.startTime ?? NaN,
    rows: performance.getEntriesByName("downcity:rows")[0]?.startTime ?? NaN,
  }));

  const start = Date.now();
  for (let s = 0; s < segments; s++) {
    await page.getByRole("button", { name: "Load earlier" }).click();
    await host.waitFor("loadEarlier", s + 1);
    await host.frames();
  }
  const segmentsMs = Date.now() - start;
  const loaded = await page.evaluate(() => (window as any).__downcityChat.conversation.items.length as number);
  if (loaded < messages) throw new Error(`only ${loaded} rows loaded`);
  const heap = () =>
    page.evaluate(() => ((window as any).gc?.(), (performance as any).memory.usedJSHeapSize as number));
  // Follow the stream as a user would: at the bottom of the conversation.
  await page.evaluate(() => (window as any).__downcityChat.list?.scrollToEnd());
  await host.frames();
  const heapLoad = await heap();
  const domRows = await page.locator(".row").count();

  // Streaming, driven inside the page at RATE deltas per second (the host's postMessage).
  const timings = await page.evaluate(
    ({ deltas, rate, ref }) =>
      new Promise<{ work: number[]; intervals: number[] }>((resolve) => {
        const words = [
          "The ",
          "change ",
          "keeps ",
          "**state** ",
          "in ",
          "`one` ",
          "place; ",
          "then ",
          "it ",
          "streams.\n\n",
          "```ts\nconst x = 1;\n",
          "const y = x + 1;\n```\n\n",
          "- item\n",
          "- item two\n\n",
        ];
        let text = "";
        let sent = 0;
        const work: number[] = [];
        const intervals: number[] = [];
        const scroller = document.querySelector(".log-scroller")!;
        const base = { sessionId: ref.sessionId, agentId: ref.agentId };
        // Every animation-frame callback (the app's and the list library's) is timed with
        // the layout it forces; summed per frame = the frame's work.
        const raf = window.requestAnimationFrame.bind(window);
        let frameTs = -1;
        let last = 0;
        window.requestAnimationFrame = (cb) =>
          raf((ts) => {
            const s0 = performance.now();
            cb(ts);
            void scroller.scrollHeight;
            const spent = performance.now() - s0;
            if (ts !== frameTs) {
              if (last) intervals.push(ts - last);
              last = ts;
              frameTs = ts;
              work.push(spent);
            } else work[work.length - 1]! += spent;
          });
        const t0 = performance.now();
        const tick = () => {
          const due = Math.min(deltas, Math.floor(((performance.now() - t0) / 1000) * rate));
          while (sent < due) {
            text += words[sent % words.length];
            sent++;
            window.postMessage(
              {
                kind: "event",
                event: {
                  type: "agent",
                  folderKey: ref.folderKey,
                  event: { type: "draft", ...base, draftId: "bench", blocks: [{ type: "text", text }] },
                },
              },
              "*",
            );
          }
          if (sent < deltas) setTimeout(tick, 4);
          else
            setTimeout(() => {
              window.requestAnimationFrame = raf;
              resolve({ work, intervals });
            }, 100);
        };
        tick();
      }),
    { deltas, rate: RATE, ref: REF },
  );
  await host.frames();
  const heapStream = await heap();
  const stats = await page.evaluate(() => ({
    parsed: (window as any).__downcityStats.markdown.parsedChars,
    renders: (window as any).__downcityStats.rowRenders,
  }));
  console.error(
    `[${messages} messages] markdown chars parsed while streaming: ${stats.parsed}, row renders: ${stats.renders}`,
  );
  const violations = (await page.evaluate(() => (window as any).__violations.length)) as number;
  await chat.close();
  return {
    messages,
    fcpMs: paint.fcp,
    snapshotToRowsMs: paint.rows - paint.snapshot,
    segmentsMs,
    domRows,
    heapLoadMiB: heapLoad / 1048576,
    heapStreamMiB: heapStream / 1048576,
    work: timings.work,
    intervals: timings.intervals,
    violations,
  };
}

async function main(): Promise<void> {
  if (skipReason) {
    console.log(`skipped: ${skipReason}`);
    return;
  }
  const bundle = readFileSync("dist/webview.js");
  console.log(
    `bundle dist/webview.js: ${fmt(bundle.length / 1024, 1)} KiB minified, ${fmt(gzipSync(bundle).length / 1024, 1)} KiB gzip`,
  );
  const { browser, close } = await launch();
  try {
    // A discarded warm-up: the first page of a fresh browser pays for compiling the bundle.
    await run(browser, 200, 400);
    const runs: Run[] = [];
    for (const n of [200, 2000]) runs.push(await run(browser, n, DELTAS));
    console.log(`\n${DELTAS} deltas at ${RATE}/s (each a full draft, as the runtime posts them), viewport 480×900`);
    table(
      [
        "messages",
        "FCP ms",
        "snapshot→rows ms",
        "10 segments ms",
        "DOM rows",
        "heap load MiB",
        "heap after stream MiB",
        "frame work p95 / max ms",
        "rAF interval p95 / max ms",
        "frames",
        "CSP violations",
      ],
      runs.map((r) => [
        r.messages,
        fmt(r.fcpMs, 0),
        fmt(r.snapshotToRowsMs, 0),
        r.segmentsMs ? r.segmentsMs : "–",
        r.domRows,
        fmt(r.heapLoadMiB),
        fmt(r.heapStreamMiB),
        `${fmt(pct(r.work, 95), 1)} / ${fmt(Math.max(...r.work), 1)}`,
        `${fmt(pct(r.intervals, 95), 1)} / ${fmt(Math.max(...r.intervals), 1)}`,
        r.work.length,
        r.violations,
      ]),
    );
    const [small, large] = runs;
    console.log(
      `\nheap ratio 2,000 / 200 messages: after load ${fmt(large!.heapLoadMiB / small!.heapLoadMiB)}, after streaming ${fmt(large!.heapStreamMiB / small!.heapStreamMiB)}`,
    );
  } finally {
    await close();
  }
}

void main();
