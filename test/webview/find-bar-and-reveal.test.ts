import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import {
  assistantEv,
  conversation,
  helloWith,
  REF,
  skipReason,
  snapshot,
  useChat,
  userEv,
  violations,
} from "../support/webview/harness";

const open = useChat();

const HOSTILE = `<img src="http://127.0.0.1:1/x" onerror="window.__pwned = 1"> $(alert) **zebra** [link](javascript:alert(1))`;

/** The text of every range in a CSS highlight (what the reader sees marked). */
const highlighted = (page: Page, name: string) =>
  page.evaluate((n) => {
    const h = (CSS as any).highlights.get(n);
    return h ? [...h].map((r: Range) => r.toString()) : [];
  }, name);

/** The revealed row's text, or null when none is. */
const revealedText = (page: Page) => page.evaluate(() => document.querySelector(".row.revealed")?.textContent ?? null);

/** Whether the element with `text` is inside the log's visible box. */
const inView = (page: Page, selector: string) =>
  page.evaluate((s) => {
    const el = document.querySelector(s);
    const box = document.querySelector(".log-scroller")!.getBoundingClientRect();
    if (!el) return false;
    const r = el.getBoundingClientRect();
    return r.bottom > box.top && r.top < box.bottom;
  }, selector);

test(
  "Ctrl+F finds over the loaded messages: count, next / previous, marks on screen, Escape closes",
  { skip: skipReason },
  async (t) => {
    const events = [
      ...conversation(1, 30),
      userEv(31, "Where is the zebra crossing?"),
      assistantEv(32, HOSTILE),
      ...conversation(33, 30),
      userEv(63, "One more Zebra, capitalised, and a zebra."),
    ];
    const { page, host } = await open(t, helloWith(snapshot(events)));
    await page.getByRole("log").getByText("One more Zebra").waitFor();
    await page.getByRole("textbox", { name: "Message" }).click();
    await page.keyboard.press("Control+f");
    const find = page.getByRole("textbox", { name: "Find" });
    await find.waitFor();
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute("aria-label")),
      "Find",
      "the find box has focus",
    );

    await find.fill("zebra");
    // Smart case: lower case matches either case. 31: one, 32: one, 63: two.
    const count = page.locator(".find-count");
    await count.getByText("4 of 4").waitFor();
    // The newest match is current and on screen, marked as current.
    assert.deepEqual(await highlighted(page, "downcity-find-current"), ["zebra"]);
    assert.ok((await highlighted(page, "downcity-find")).includes("Zebra"), "the other match on screen is marked too");

    await page.getByRole("button", { name: "Previous match" }).click();
    await count.getByText("3 of 4").waitFor();
    await page.getByRole("button", { name: "Previous match" }).click();
    await count.getByText("2 of 4").waitFor();
    await host.frames();
    // The hostile message is far above the end: the list scrolled to it, and it is text.
    await page.getByRole("log").getByText("$(alert)").waitFor();
    assert.ok(await inView(page, '.row[data-key="seq:32"]'), "the current match's row is scrolled into view");
    assert.deepEqual(await highlighted(page, "downcity-find-current"), ["zebra"]);
    assert.equal(
      await page.locator('.row[data-key="seq:32"] img').count(),
      0,
      "model output's markup is not rendered as an image",
    );

    // Enter goes to the next one, wrapping at the end.
    await find.press("Enter");
    await count.getByText("3 of 4").waitFor();
    await find.press("Enter");
    await find.press("Enter");
    await count.getByText("1 of 4").waitFor();

    // Upper case makes it case-sensitive.
    await find.fill("Zebra");
    await count.getByText("1 of 1").waitFor();
    await find.fill("no such word");
    await count.getByText("No results").waitFor();

    await find.press("Escape");
    await find.waitFor({ state: "detached" });
    assert.deepEqual(await highlighted(page, "downcity-find"), []);
    assert.equal(host.count("cancel"), 0, "Escape in the find box does not stop a run");
    assert.equal(await page.evaluate(() => (window as any).__pwned), undefined);
    assert.deepEqual(await violations(page), []);
    assert.deepEqual(
      host.sent.filter((s) => (s.method as string) === "pageerror"),
      [],
    );
  },
);

test(
  "Search this whole session lists hits from history not loaded; choosing one pages back to it and highlights it",
  { skip: skipReason },
  async (t) => {
    // Active: 201–240. Segments: 101–200 (holds the word at 150), 1–100.
    const active = conversation(201, 40);
    const older = [...conversation(101, 49), userEv(150, "The quokka lives on Rottnest."), ...conversation(151, 50)];
    const snap = snapshot(active, {
      page: { events: active, firstSeq: 201, lastSeq: 240, hasOlder: true, summary: "Summary through 200." },
    });
    const { page, host } = await open(t, (host) =>
      helloWith(snap)(host)
        .on("searchSession", ({ query }) => ({
          hits: [
            {
              seq: 150,
              kind: "user" as const,
              snippet: "The quokka lives on Rottnest.",
              ranges: [[4, 10]] as [number, number][],
              time: 1,
              location: "closed" as const,
            },
            {
              seq: 160,
              kind: "tool" as const,
              snippet: `${HOSTILE} quokka`,
              ranges: [[HOSTILE.length + 1, HOSTILE.length + 7]] as [number, number][],
              time: 2,
              location: "closed" as const,
            },
          ].filter(() => query === "quokka"),
          more: false,
        }))
        .on("loadThrough", ({ beforeSeq, seq }) =>
          beforeSeq === 201 && seq <= 200
            ? [{ events: older, firstSeq: 101, lastSeq: 200, hasOlder: true, summary: "Summary through 100." }]
            : [],
        ),
    );
    await page.getByRole("log").getByText("Question 239").waitFor();
    await page.getByRole("log").click();
    await page.keyboard.press("Control+f");
    await page.getByRole("textbox", { name: "Find" }).fill("quokka");
    await page.locator(".find-count").getByText("No results").waitFor();
    await page.getByRole("button", { name: "Search this whole session" }).click();
    await host.waitFor("searchSession");
    assert.deepEqual(host.sent.find((s) => s.method === "searchSession")!.params, { ref: REF, query: "quokka" });
    const hits = page.getByRole("list", { name: "Matches in this session" });
    await hits.getByText("Rottnest").waitFor();
    // The snippet is text: its ranges are <mark>ed, the hostile markup shows as characters.
    assert.deepEqual(await hits.locator("mark").allTextContents(), ["quokka", "quokka"]);
    assert.equal(await hits.locator("img").count(), 0);
    await hits.getByText("$(alert)").waitFor();
    assert.equal(await hits.getByText("closed history").count(), 2);

    await hits.getByRole("button", { name: /Rottnest/ }).click();
    await host.waitFor("loadThrough");
    assert.deepEqual(host.sent.find((s) => s.method === "loadThrough")!.params, {
      ref: REF,
      beforeSeq: 201,
      seq: 150,
    });
    // Paged back to the segment holding the hit: the loaded history starts at 101 (the bar shows no seq numbers).
    await page.waitForFunction(() => (window as any).__downcityChat.conversation.firstSeq === 101);
    await page.locator(".row.revealed").waitFor();
    await host.frames();
    assert.match((await revealedText(page))!, /The quokka lives on Rottnest\./);
    assert.ok(await inView(page, ".row.revealed"), "the revealed message is scrolled into view");
    assert.equal(await page.locator(".row.revealed").getAttribute("aria-current"), "true");
    assert.deepEqual(await violations(page), []);
  },
);

test(
  "A switch that asks for a reveal pages back to its seq in one request and highlights that message; the same session shown again re-does it until the reader moves on",
  { skip: skipReason },
  async (t) => {
    const active = conversation(301, 20);
    const snap = snapshot(active, { page: { events: active, firstSeq: 301, lastSeq: 320, hasOlder: true } });
    const segments = [
      { events: conversation(201, 100), firstSeq: 201, lastSeq: 300, hasOlder: true, summary: "Summary through 200." },
      {
        events: [
          ...conversation(101, 20),
          assistantEv(121, "Here the narwhal is mentioned once."),
          ...conversation(122, 79),
        ],
        firstSeq: 101,
        lastSeq: 200,
        hasOlder: true,
        summary: "Summary through 100.",
      },
    ];
    const { page, host } = await open(t, (host) =>
      helloWith(snap)(host)
        .on("loadThrough", ({ beforeSeq }) => (beforeSeq === 301 ? segments : []))
        .on("prompt", () => ({ steered: false })),
    );
    const revealedNarwhal = async (requests: number) => {
      await host.waitFor("loadThrough", requests);
      await page.waitForFunction(() => (window as any).__downcityChat.conversation.firstSeq === 101);
      await page.locator(".row.revealed").waitFor();
      await host.frames();
      assert.match((await revealedText(page))!, /narwhal is mentioned once/);
      assert.ok(await inView(page, ".row.revealed"));
    };
    await page.getByRole("log").getByText("Question 319").waitFor();
    await host.event({ type: "session-switched", snapshot: { ...snap, reveal: { seq: 121, query: "narwhal" } } });
    await revealedNarwhal(1);
    assert.equal(host.count("loadEarlier"), 0, "one round trip whatever the number of segments");
    assert.deepEqual(host.sent.find((s) => s.method === "loadThrough")!.params, {
      ref: REF,
      beforeSeq: 301,
      seq: 121,
    });
    // Both segment boundaries are there, as clicking Load earlier twice would show them.
    assert.equal(
      await page.evaluate(
        () => (window as any).__downcityChat.conversation.items.filter((i: any) => i.kind === "summary").length,
      ),
      2,
    );
    assert.deepEqual(await highlighted(page, "downcity-find"), ["narwhal"]);
    // The reveal is not part of what the view saves (a reload must not jump back to it).
    await page.waitForFunction(() => sessionStorage.getItem("vscode-state") !== null);
    assert.doesNotMatch((await page.evaluate(() => sessionStorage.getItem("vscode-state")))!, /narwhal"|"reveal"/);

    // The same session shown again without a reveal (a reloading view's hello answered after the switch): still revealed.
    await host.event({ type: "session-switched", snapshot: snap });
    await revealedNarwhal(2);

    // Once the reader sends a message, showing the session again is only showing it.
    await page.getByRole("textbox", { name: "Message" }).fill("thanks");
    await page.keyboard.press("Enter");
    await host.waitFor("prompt");
    await host.event({ type: "session-switched", snapshot: snap });
    await page.waitForFunction(() => (window as any).__downcityChat.conversation.firstSeq === 301);
    await host.frames();
    assert.equal(host.count("loadThrough"), 2);
    assert.equal(await revealedText(page), null);
  },
);

test(
  "the find bar's cost: a streamed draft's deltas recount nothing; marking covers only the rows on screen, not the 400 loaded",
  { skip: skipReason },
  async (t) => {
    const { page, host } = await open(t, helloWith(snapshot(conversation(1, 400))));
    const stats = () =>
      page.evaluate(() => ({ ...(window as any).__downcityStats.find, draws: (window as any).__downcityStats.draws }));
    await page.getByRole("log").getByText("Question 399").waitFor();
    await page.getByRole("log").click();
    await page.keyboard.press("Control+f");
    await page.getByRole("textbox", { name: "Find" }).fill("works like");
    await page.locator(".find-count").getByText("200 of 200").waitFor();
    await host.frames();
    const before = await stats();
    const base = { sessionId: REF.sessionId, agentId: REF.agentId };
    await host.event({ type: "agent", folderKey: REF.folderKey, event: { type: "turn-started", ...base } });
    for (let i = 1; i <= 30; i++) {
      await host.event({
        type: "agent",
        folderKey: REF.folderKey,
        event: {
          type: "draft",
          ...base,
          draftId: "d1",
          blocks: [{ type: "text", text: "streaming works like this ".repeat(i) }],
        },
      });
      if (i % 5 === 0) await host.frames();
    }
    await host.frames();
    const after = await stats();
    // The draft's row appearing is one recount; its 30 deltas are none.
    assert.ok(
      after.recounts - before.recounts <= 1,
      `recounts while streaming 30 deltas: ${after.recounts - before.recounts}`,
    );
    const draws = after.draws - before.draws;
    assert.ok(draws > 0);
    const perDraw = (after.rowsMarked - before.rowsMarked) / draws;
    assert.ok(perDraw < 30, `rows marked per draw: ${perDraw} (400 loaded)`);
    // A new logged event is a new row: counted again, once (the draft's current text with it).
    const total = async () => Number((await page.locator(".find-count").textContent())!.replace(/^.* of /, ""));
    const totalBefore = await total();
    await host.event({
      type: "agent",
      folderKey: REF.folderKey,
      event: { type: "session-event", ...base, event: userEv(401, "and this works like a charm") },
    });
    await page.waitForFunction(
      (n) => Number(document.querySelector(".find-count")!.textContent!.replace(/^.* of /, "")) > n,
      totalBefore,
    );
    assert.equal((await stats()).recounts, after.recounts + 1);
  },
);
