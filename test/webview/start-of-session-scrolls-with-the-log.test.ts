import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { conversation, helloWith, openChat, skipReason, snapshot, useBrowser } from "../support/webview/harness";

const browserOf = useBrowser();

/** How much of the element is on screen, clipping by the scroller counted (an IntersectionObserver's ratio). */
const shownRatio = (page: Page, selector: string) =>
  page.evaluate(
    (sel) =>
      new Promise<number>((resolve) => {
        const el = document.querySelector(sel);
        if (!el) return resolve(-1);
        const io = new IntersectionObserver(([entry]) => {
          io.disconnect();
          resolve(entry!.intersectionRatio);
        });
        io.observe(el);
      }),
    selector,
  );

/** Bounded: waits frame by frame until `check` holds, returning its last value. */
async function settle<T>(page: Page, read: () => Promise<T>, check: (v: T) => boolean, frames = 60): Promise<T> {
  let value = await read();
  for (let i = 0; i < frames && !check(value); i++) {
    await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => r())));
    value = await read();
  }
  return value;
}

const atEnd = (page: Page) =>
  page.evaluate(() => {
    const s = document.querySelector<HTMLElement>(".log-scroller")!;
    return s.scrollHeight - s.scrollTop - s.clientHeight;
  });

/** The bar's bottom and the top of the first row drawn, in page pixels. */
const barAndFirstRow = (page: Page) =>
  page.evaluate(() => {
    const bar = document.querySelector(".history-bar")!.getBoundingClientRect();
    const rows = Array.from(document.querySelectorAll<HTMLElement>(".log-scroller .row"));
    const first = rows.find((r) => r.dataset.index === "0");
    return { barBottom: bar.bottom, firstTop: first ? first.getBoundingClientRect().top : undefined };
  });

// Seen in the editor chat: scrolled to the end of a long session, "Start of session" stayed pinned at the top of the
// chat over the first line shown. It marks where the session starts, so it scrolls with the conversation.
for (const [where, viewport] of [
  ["the sidebar", { width: 420, height: 720 }],
  ["the editor", { width: 900, height: 600 }],
] as const) {
  test(
    `in ${where}, "Start of session" is off screen at the end of a long chat and above its first row at the top`,
    {
      skip: skipReason,
    },
    async () => {
      const chat = await openChat(browserOf(), helloWith(snapshot(conversation(1, 12))), { viewport });
      const { page } = chat;
      try {
        await page.getByRole("log").getByText("Answer 12.").waitFor({ timeout: 10_000 });
        await page.getByText("Start of session").waitFor({ state: "attached", timeout: 10_000 });
        assert.ok(
          (await settle(
            page,
            () => atEnd(page),
            (gap) => gap <= 2,
          )) <= 2,
          "opened at the end",
        );
        assert.equal(await shownRatio(page, ".history-start"), 0, "at the end, no part of 'Start of session' shows");

        await page.evaluate(() => (document.querySelector(".log-scroller")!.scrollTop = 0));
        const top = await settle(
          page,
          () => barAndFirstRow(page),
          (p) => p.firstTop !== undefined,
        );
        assert.equal(await shownRatio(page, ".history-start"), 1, "at the top it shows, whole");
        assert.ok(top.firstTop !== undefined, "the first row is drawn at the top");
        assert.ok(
          top.firstTop >= top.barBottom - 0.5,
          `the first row starts below the bar (row top ${top.firstTop}, bar bottom ${top.barBottom})`,
        );
        assert.ok(top.firstTop - top.barBottom < 16, `and right below it (${top.firstTop - top.barBottom} px)`);
        await page.getByRole("log").getByText("Question 1:").first().waitFor({ timeout: 10_000 });
      } finally {
        await chat.close();
      }
    },
  );
}
