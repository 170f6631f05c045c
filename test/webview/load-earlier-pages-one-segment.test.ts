import assert from "node:assert/strict";
import { test } from "node:test";
import { conversation, helloWith, skipReason, snapshot, useChat, violations } from "../support/webview/harness";

const open = useChat();

test(
  "Load earlier requests one segment, renders it above with its summary, and keeps the scroll position",
  { skip: skipReason },
  async (t) => {
    // Active page: events 201–260; segments: 101–200 and 1–100.
    const snap = snapshot(conversation(201, 60), {
      page: {
        events: conversation(201, 60),
        firstSeq: 201,
        lastSeq: 260,
        hasOlder: true,
        summary: "Summary through 200: set up the project.",
      },
    });
    const { page, host } = await open(t, (host) =>
      helloWith(snap)(host).on("loadEarlier", ({ beforeSeq }) =>
        beforeSeq === 201
          ? {
              events: conversation(101, 100),
              firstSeq: 101,
              lastSeq: 200,
              hasOlder: true,
              summary: "Summary through 100: the first steps.",
            }
          : { events: conversation(1, 100), firstSeq: 1, lastSeq: 100, hasOlder: false },
      ),
    );
    const log = page.getByRole("log");
    await log.getByText("Question 259").waitFor();
    // Plain words: no seq or event numbers anywhere in the history bar (issue 19 item 7).
    assert.doesNotMatch((await page.locator(".history-bar").textContent())!, /\d|events/i);
    const domRows = await page.locator(".row").count();
    assert.ok(domRows < 30, `virtualised: ${domRows} rows in the DOM for 60 messages`);

    // Scroll to the top of the Active page, where the summary of 1–200 shows.
    await page.evaluate(() => (document.querySelector(".log-scroller")!.scrollTop = 0));
    await log.getByText("Summary of earlier messages").waitFor();
    await log.getByText("Question 201").waitFor();
    const anchorTop = () => page.getByText("Question 201:").evaluate((el) => el.getBoundingClientRect().top);
    const before = await anchorTop();

    await page.getByRole("button", { name: "Load earlier" }).click();
    await host.waitFor("loadEarlier");
    await log.getByText("Answer 200.").waitFor();
    await host.frames();
    assert.equal(host.count("loadEarlier"), 1, "one segment per click");
    assert.deepEqual(host.sent.find((s) => s.method === "loadEarlier")!.params.beforeSeq, 201);
    const afterTop = await anchorTop();
    assert.ok(Math.abs(afterTop - before) <= 2, `the message in view stays put: ${before} → ${afterTop}`);

    // The older page is above: scrolling up reaches its last message and its own summary.
    await page.evaluate(() => (document.querySelector(".log-scroller")!.scrollTop = 0));
    await log.getByText("Summary of earlier messages").waitFor();
    await log.getByText("Question 101").waitFor();

    await page.getByRole("button", { name: "Load earlier" }).click();
    await host.waitFor("loadEarlier", 2);
    assert.equal(host.sent.filter((s) => s.method === "loadEarlier")[1]!.params.beforeSeq, 101);
    await page.getByText("Start of session").waitFor();
    assert.equal(await page.getByRole("button", { name: "Load earlier" }).count(), 0);
    assert.deepEqual(await violations(page), []);
  },
);
