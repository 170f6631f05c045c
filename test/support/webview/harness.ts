/**
 * Browser harness for the chat webview: serves the built bundle and media/ from
 * 127.0.0.1 under the extension's own CSP (`chatHtml`), opens it in Debian's Chromium
 * through playwright-core, and plays the host side of the RPC. Tests skip with a
 * clear message when Chromium is not installed.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { chromium } from "playwright-core";
import { after, before } from "node:test";
import type {
  ChatHostEvent,
  ChatMethod,
  ChatParams,
  ChatResult,
  ChatSnapshot,
  SessionEvent,
} from "../../../core/protocol";
import { chatHtml, makeNonce } from "../../../extension/chat/html";

const ROOT = join(__dirname, "..", "..", "..");
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const OUT = join(ROOT, "test", ".out", "webview");
export const skipReason = !existsSync(CHROMIUM)
  ? `Chromium not found at ${CHROMIUM}: apt-get install chromium (browser tests skipped)`
  : !existsSync(join(ROOT, "dist", "webview.js"))
    ? "dist/webview.js missing: run npm run build (browser tests skipped)"
    : undefined;

const TYPES: Record<string, string> = {
  ".js": "text/javascript",
  ".css": "text/css",
  ".ttf": "font/ttf",
  ".map": "application/json",
};

export interface Served {
  origin: string;
  /** Every path the page asked for (remote loads an attack would cause show up here). */
  hits: string[];
  close(): Promise<void>;
}

/** Serves `/` (the chat document) plus dist/ and media/; everything else is a 404 that is still recorded. */
export type Theme = "light" | "dark" | "high-contrast";
const THEMES: readonly Theme[] = ["light", "dark", "high-contrast"];

export async function serve(theme: Theme = "light"): Promise<Served> {
  const hits: string[] = [];
  let origin = "";
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    hits.push(url.pathname);
    if (url.pathname === "/") {
      const nonce = makeNonce();
      const asked = url.searchParams.get("theme") as Theme | null;
      const name = asked && THEMES.includes(asked) ? asked : theme;
      const html = chatHtml({
        cspSource: origin,
        nonce,
        scriptUri: `${origin}/dist/webview.js`,
        styleUri: `${origin}/media/chat.css`,
        codiconsUri: `${origin}/media/codicons/codicon.css`,
      })
        // VS Code injects its theme variables; the harness links a stylesheet with the same names.
        .replace("</head>", `<link rel="stylesheet" href="${origin}/theme/${name}.css">\n</head>`)
        // ...and marks the body with the theme's kind, as VS Code does.
        .replace("<body>", `<body class="vscode-${name}">`);
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
      return;
    }
    if (url.pathname.startsWith("/theme/")) {
      const name = THEMES.find((t) => url.pathname === `/theme/${t}.css`) ?? "light";
      res
        .writeHead(200, { "content-type": "text/css" })
        .end(readFileSync(join(ROOT, "test", "webview", `theme-${name}.css`)));
      return;
    }
    const file = normalize(join(ROOT, url.pathname));
    if (
      (url.pathname.startsWith("/dist/") || url.pathname.startsWith("/media/")) &&
      file.startsWith(ROOT) &&
      existsSync(file)
    ) {
      res
        .writeHead(200, { "content-type": TYPES[file.slice(file.lastIndexOf("."))] ?? "application/octet-stream" })
        .end(readFileSync(file));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return { origin, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function launch(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), "downcity-chromium-"));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    env: { ...process.env, HOME: profile },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
      "--js-flags=--expose-gc",
      "--enable-precise-memory-info",
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

type Handler<M extends ChatMethod> = (
  params: ChatParams<M>,
) => ChatResult<M> | Promise<ChatResult<M>> | { error: string };

export interface Sent {
  id: number;
  method: ChatMethod;
  params: any;
}

/** The host side of one page: answers requests with per-method handlers, records them, pushes events. */
export class FakeHost {
  readonly sent: Sent[] = [];
  private readonly handlers = new Map<string, Handler<any>>();
  private readonly waiters: { method: string; count: number; resolve(): void }[] = [];
  /** Requests held back (answered when the test says so). */
  readonly held = new Map<string, Sent[]>();
  hold = new Set<string>();

  constructor(readonly page: Page) {}

  on<M extends ChatMethod>(method: M, handler: Handler<M>): this {
    this.handlers.set(method, handler);
    return this;
  }

  async receive(message: Sent): Promise<void> {
    this.sent.push(message);
    for (const w of [...this.waiters])
      if (this.count(w.method) >= w.count) (this.waiters.splice(this.waiters.indexOf(w), 1), w.resolve());
    if (this.hold.has(message.method)) {
      this.held.set(message.method, [...(this.held.get(message.method) ?? []), message]);
      return;
    }
    await this.answer(message);
  }

  async answer(message: Sent): Promise<void> {
    const handler = this.handlers.get(message.method);
    const result = handler ? await handler(message.params) : {};
    const reply =
      result &&
      typeof result === "object" &&
      "error" in result &&
      typeof (result as { error: unknown }).error === "string"
        ? { kind: "response", id: message.id, error: { code: "failed", message: (result as { error: string }).error } }
        : { kind: "response", id: message.id, result };
    await this.postRaw(reply);
  }

  async release(method: string): Promise<void> {
    this.hold.delete(method);
    for (const m of this.held.get(method) ?? []) await this.answer(m);
    this.held.delete(method);
  }

  count(method: string): number {
    return this.sent.filter((s) => s.method === method).length;
  }

  /** Resolves once `count` requests of `method` were sent (bounded by the test's timeout). */
  waitFor(method: ChatMethod, count = 1, timeoutMs = 10_000): Promise<void> {
    if (this.count(method) >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${method} request #${count} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({ method, count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  event(event: ChatHostEvent): Promise<void> {
    return this.postRaw({ kind: "event", event });
  }

  /** Anything at all, as the host's postMessage would deliver it. */
  postRaw(message: unknown): Promise<void> {
    // A reply still on its way when the test closed the page has no one to reach.
    return this.page
      .evaluate((m) => window.postMessage(m, "*"), message as any)
      .catch((error: unknown) => {
        if (!this.page.isClosed()) throw error;
      });
  }

  /** Waits for two animation frames, so coalesced renders have happened. */
  frames(): Promise<void> {
    return this.page.evaluate(
      () => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))),
    );
  }
}

/** Runs before the bundle: the VS Code API stand-in (state kept in sessionStorage so it survives reloads), CSP and attack sensors. */
function initScript(): void {
  const w = window as any;
  w.__violations = [];
  document.addEventListener("securitypolicyviolation", (e) =>
    w.__violations.push(`${e.violatedDirective} ${e.blockedURI}`),
  );
  w.acquireVsCodeApi = () => ({
    postMessage: (m: unknown) => w.__toHost(m),
    getState: () => {
      const raw = sessionStorage.getItem("vscode-state");
      return raw ? JSON.parse(raw) : undefined;
    },
    setState: (s: unknown) =>
      s === undefined
        ? sessionStorage.removeItem("vscode-state")
        : sessionStorage.setItem("vscode-state", JSON.stringify(s)),
  });
}

export interface Chat {
  page: Page;
  context: BrowserContext;
  host: FakeHost;
  served: Served;
  close(): Promise<void>;
}

export async function openChat(
  browser: Browser,
  setup: (host: FakeHost) => void,
  options: { theme?: Theme; viewport?: { width: number; height: number } } = {},
): Promise<Chat> {
  const served = await serve(options.theme);
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 420, height: 720 } });
  const page = await context.newPage();
  const host = new FakeHost(page);
  setup(host);
  // A failed reply is the test's failure while the page is open, nobody's after it closed.
  await page.exposeFunction(
    "__toHost",
    (m: Sent) =>
      void host.receive(m).catch((e) => {
        if (!page.isClosed())
          host.sent.push({ id: -1, method: "pageerror" as ChatMethod, params: `host reply failed: ${String(e)}` });
      }),
  );
  // tsx compiles with keepNames: functions shipped to the page reference its `__name` helper.
  await page.addInitScript({ content: "window.__name = (f) => f;" });
  await page.addInitScript(initScript);
  page.on("pageerror", (e) => host.sent.push({ id: -1, method: "pageerror" as ChatMethod, params: String(e) }));
  await page.goto(`${served.origin}/`);
  return {
    page,
    context,
    host,
    served,
    close: async () => {
      await context.close();
      await served.close();
    },
  };
}

// ---- fixtures

let time = 1_700_000_000_000;
export function ev(seq: number, type: string, data: unknown, surface = true): SessionEvent {
  return { seq, time: time++, type, data, ...(surface ? { surface: "append" as const } : {}) };
}
export const userEv = (seq: number, text: string) => ev(seq, "user/message", { content: [{ type: "text", text }] });
export const assistantEv = (seq: number, text: string, extra: unknown[] = []) =>
  ev(seq, "assistant/message", { content: [{ type: "text", text }, ...extra] });

export const REF = { folderKey: "file:///ws", agentId: "code", sessionId: "s1" };

/** A conversation of `n` messages (alternating user / assistant) ending at `lastSeq`. */
export function conversation(firstSeq: number, n: number): SessionEvent[] {
  return Array.from({ length: n }, (_, i) =>
    i % 2 === 0
      ? userEv(firstSeq + i, `Question ${firstSeq + i}: how does part ${i} work?`)
      : assistantEv(
          firstSeq + i,
          `Answer ${firstSeq + i}.\n\nIt works like **this**, with \`code\` and a list:\n\n- one\n- two`,
        ),
  );
}

export function snapshot(events: SessionEvent[], extra: Partial<ChatSnapshot> = {}): ChatSnapshot {
  const firstSeq = events[0]?.seq ?? 1;
  return {
    ref: REF,
    folderName: "ws",
    title: "A session",
    running: false,
    page: { events, firstSeq, lastSeq: events[events.length - 1]?.seq ?? 0, hasOlder: firstSeq > 1 },
    pendingApprovals: [],
    ...extra,
  };
}

export const CONFIG = {
  providerConfigured: true,
  models: [{ provider: "local", model: "qwen-coder" }],
  agents: [
    { id: "code", name: "Code" },
    { id: "ask", name: "Ask" },
  ],
};

/** Host that answers hello with `snap`. */
export function helloWith(snap: ChatSnapshot | undefined) {
  return (host: FakeHost) => host.on("hello", () => (snap ? { config: CONFIG, snapshot: snap } : { config: CONFIG }));
}

export async function violations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as any).__violations as string[]);
}

/**
 * The chat's opening for a test file: one browser for the file (useBrowser), and `open(t, setup, options)`, which opens
 * the chat with the host's `setup` and closes it when the test `t` ends, whatever happened.
 */
export function useChat(): (
  t: { after(fn: () => unknown): void },
  setup: (host: FakeHost) => void,
  options?: Parameters<typeof openChat>[2],
) => Promise<Chat> {
  const browserOf = useBrowser();
  return async (t, setup, options) => {
    const chat = await openChat(browserOf(), setup, options);
    t.after(() => chat.close());
    return chat;
  };
}

/** One browser per test file, launched before its tests and closed after (not at all when skipping). */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  let close: (() => Promise<void>) | undefined;
  before(async () => {
    if (skipReason) return;
    ({ browser, close } = await launch());
  });
  after(async () => close?.());
  return () => browser!;
}
