import assert from "node:assert/strict";
import { test } from "node:test";
import {
  assistantEv,
  helloWith,
  REF,
  skipReason,
  snapshot,
  useChat,
  userEv,
  violations,
} from "../support/webview/harness";

const open = useChat();

const PAYLOADS = [
  `<script>window.__pwned = "script"</script>`,
  `<img src="/evil/img.png" onerror="window.__pwned = 'img'">`,
  `<svg onload="window.__pwned = 'svg'"><circle r=1 /></svg>`,
  `<iframe src="/evil/frame"></iframe>`,
  `[click me](javascript:window.__pwned='js-link')`,
  `[data link](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0nZGF0YSc8L3NjcmlwdD4=)`,
  `![remote image](/evil/markdown-image.png)`,
  `![data image](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+)`,
  `<style>body { background: url(/evil/css-bg.png) } * { display: none !important }</style>`,
  `<a href="javascript:window.__pwned='a-tag'">raw anchor</a>`,
  `<div style="background:url(/evil/inline-style.png)">styled</div>`,
  `<form action="/evil/form"><button>submit</button></form>`,
  `<link rel="stylesheet" href="/evil/link.css">`,
  `<object data="/evil/object"></object>`,
  "```html\n<script>window.__pwned='fence'</script>\n```",
  `[auto](https://127.0.0.1:1/evil-external)`,
].join("\n\n");

test(
  "model output with scripts, event handlers, javascript:/data: links and CSS injection runs and loads nothing",
  { skip: skipReason },
  async (t) => {
    const base = { sessionId: REF.sessionId, agentId: REF.agentId };
    const { page, host, served } = await open(t, (host) =>
      helloWith(snapshot([userEv(1, PAYLOADS), assistantEv(2, PAYLOADS)]))(host).on("openLink", () => ({
        opened: false,
      })),
    );
    await page.getByText("raw anchor").first().waitFor();
    // The same payloads streamed (the draft path renders differently) and as a tool's output.
    await host.event({
      type: "agent",
      folderKey: REF.folderKey,
      event: {
        type: "draft",
        ...base,
        draftId: "d",
        blocks: [
          { type: "reasoning", text: PAYLOADS },
          { type: "text", text: PAYLOADS },
        ],
      },
    });
    await host.frames();
    await page.locator(".message.assistant.streaming .markdown").getByText("raw anchor").waitFor();

    // Every link the view rendered is clicked: none navigates, each goes to the host.
    const anchors = page.locator(".log-scroller a");
    const n = await anchors.count();
    for (let i = 0; i < n; i++)
      await anchors
        .nth(i)
        .click({ force: true })
        .catch(() => undefined);
    await host.frames();

    const state = await page.evaluate(() => ({
      pwned: (window as any).__pwned,
      scripts: document.querySelectorAll(
        ".log-scroller script, .log-scroller iframe, .log-scroller img, .log-scroller style, .log-scroller form, .log-scroller object, .log-scroller link, .log-scroller svg",
      ).length,
      styled: document.querySelectorAll(".log-scroller [style]:not(.row):not(.log-inner)").length,
      handlers: Array.from(document.querySelectorAll(".log-scroller *")).filter((el) =>
        Array.from(el.attributes).some((a) => a.name.startsWith("on")),
      ).length,
      hrefs: Array.from(document.querySelectorAll(".log-scroller a")).map((a) => a.getAttribute("href")),
      url: location.pathname,
      visible: getComputedStyle(document.querySelector(".composer")!).display,
    }));
    assert.equal(state.pwned, undefined, "no payload ran");
    assert.equal(state.scripts, 0, "no active element reached the DOM");
    assert.equal(state.styled, 0, "no inline style from model output");
    assert.equal(state.handlers, 0, "no event-handler attribute");
    assert.ok(
      state.hrefs.every((h) => h && !/^(javascript|data|vbscript):/i.test(h)),
      `only safe hrefs: ${state.hrefs.join(", ")}`,
    );
    assert.equal(state.url, "/", "the webview never navigated");
    assert.notEqual(state.visible, "none", "CSS injection did not hide the UI");
    assert.deepEqual(await violations(page), [], "nothing was even attempted against the CSP");
    assert.deepEqual(
      served.hits.filter((h) => h.startsWith("/evil")),
      [],
      "nothing was requested",
    );
    const links = host.sent.filter((s) => s.method === "openLink").map((s) => s.params.href);
    assert.ok(
      links.includes("https://127.0.0.1:1/evil-external"),
      "links go to the host, which confirms before opening",
    );
  },
);
