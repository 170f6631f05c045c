import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, watch } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import type { AgentEvent, CatchUp, ChatHostMessage, SessionRef, ChatSnapshot, SessionEvent } from "../../core/protocol";
import { Conversation } from "../../webview/conversation";
import { renderedModel } from "../../webview/rendered";

const REPO = join(import.meta.dirname, "../..");
const BOUND_MS = 20_000;
/** A host's start is a fresh Node + tsx compiling the runtime: past 20 s beside a busy CPU at load 20+ (seen in a loop). */
const START_BOUND_MS = 60_000;

/** A chat host process (see host-child.ts) and one view's side of its RPC. */
export class HostProcess {
  readonly posted: ChatHostMessage[] = [];
  private readonly waiters = new Set<() => void>();
  private nextId = 0;
  private readonly exited: Promise<number | null>;
  private stderr = "";

  private constructor(readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    child.stderr!.on("data", (d: Buffer) => (this.stderr += d.toString()));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const message = JSON.parse(line) as {
        posted?: ChatHostMessage;
        ready?: boolean;
        tag?: number;
        result?: unknown;
        error?: string;
        closed?: boolean;
      };
      this.lines.push(message);
      if (message.posted) this.posted.push(message.posted);
      for (const w of [...this.waiters]) w();
    });
  }
  private readonly lines: {
    posted?: ChatHostMessage;
    ready?: boolean;
    tag?: number;
    result?: unknown;
    error?: string;
    closed?: boolean;
  }[] = [];

  static async start(root: string, baseURL: string, env: Record<string, string> = {}): Promise<HostProcess> {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--require",
        "./test/support/vscode-fake/register.cjs",
        "test/replay/host-child.ts",
        root,
        baseURL,
      ],
      {
        cwd: REPO,
        env: { ...process.env, ...env },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    const host = new HostProcess(child);
    try {
      await host.wait(() => host.lines.some((l) => l.ready), "the host to start", START_BOUND_MS);
    } catch (error) {
      // Nobody holds this host yet: left running, its pipes keep the test process alive forever.
      await host.kill();
      throw error;
    }
    return host;
  }

  /** Resolves when `check` holds, re-checked on every line the host writes (bounded). */
  wait(check: () => boolean, what: string, boundMs = BOUND_MS): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(done);
        reject(new Error(`timed out waiting for ${what}; host stderr: ${this.stderr.slice(-2000)}`));
      }, boundMs);
      this.waiters.add(done);
      done();
    });
  }

  async request<T = any>(method: string, params: unknown): Promise<T> {
    const id = ++this.nextId;
    this.child.stdin!.write(`${JSON.stringify({ request: { kind: "request", id, method, params } })}\n`);
    let reply: ChatHostMessage | undefined;
    await this.wait(
      () => (reply = this.posted.find((m) => m.kind === "response" && m.id === id)) !== undefined,
      `the reply to ${method}`,
    );
    if (reply!.kind === "response" && "error" in reply!) throw new Error(`${method}: ${reply.error.message}`);
    return (reply as { result: T }).result;
  }

  async compact(ref: SessionRef): Promise<unknown> {
    const tag = ++this.nextId;
    this.child.stdin!.write(
      `${JSON.stringify({ compact: { agentId: ref.agentId, sessionId: ref.sessionId }, tag })}\n`,
    );
    let line: { result?: unknown; error?: string } | undefined;
    await this.wait(() => (line = this.lines.find((l) => l.tag === tag)) !== undefined, "Compact Now");
    if (line!.error) throw new Error(line!.error);
    return line!.result;
  }

  agentEvents(): AgentEvent[] {
    return this.posted.flatMap((m) => (m.kind === "event" && m.event.type === "agent" ? [m.event.event] : []));
  }

  untilAgent(match: (e: AgentEvent) => boolean, what: string): Promise<void> {
    return this.wait(() => this.agentEvents().some(match), what);
  }

  /** Graceful: flushes and releases every session (a window reload's extension host shutdown). */
  async close(): Promise<void> {
    this.child.stdin!.write(`${JSON.stringify({ close: true })}\n`);
    await this.exited;
  }

  async kill(): Promise<void> {
    this.child.kill("SIGKILL");
    await this.exited;
  }
}

/**
 * A webview's state fed exactly as ChatApp feeds it: a snapshot shows, agent events
 * apply. `liveEvents` are what ChatApp saves beside its snapshot for a reload.
 */
export class ViewModel {
  readonly conversation = new Conversation();
  snapshot: ChatSnapshot | undefined;
  readonly liveEvents: SessionEvent[] = [];
  private seen = 0;

  show(snapshot: ChatSnapshot): this {
    this.snapshot = snapshot;
    this.liveEvents.length = 0;
    this.conversation.show(snapshot);
    return this;
  }

  /** Applies what the host posted since the last call (for the shown session). */
  follow(host: HostProcess): this {
    const posted = host.posted.slice(this.seen);
    this.seen = host.posted.length;
    for (const m of posted) {
      if (m.kind !== "event") continue;
      if (m.event.type === "session-switched") this.show(m.event.snapshot);
      if (m.event.type !== "agent" || !this.snapshot || m.event.event.sessionId !== this.snapshot.ref.sessionId)
        continue;
      const e = m.event.event;
      if (e.type === "session-event" && e.event.seq > this.conversation.lastSeq) this.liveEvents.push(e.event);
      this.conversation.applyAgent(e);
    }
    return this;
  }

  /** Skips what the host posted so far (events of a session this view is not following any more). */
  skip(host: HostProcess): this {
    this.seen = host.posted.length;
    return this;
  }

  /** The saved state a reloaded webview paints first (ChatApp.save): the snapshot page plus the live events. */
  saved(): ChatSnapshot {
    const s = this.snapshot!;
    return {
      ...s,
      page: { ...s.page, events: [...s.page.events, ...this.liveEvents], lastSeq: this.conversation.lastSeq },
      draft: undefined,
      pendingApprovals: [],
    };
  }

  rendered() {
    return renderedModel(this.conversation);
  }
}

/** A reloaded webview: its saved state, then the host's catch-up (ChatApp.start). */
export async function reloadedView(host: HostProcess, saved: ChatSnapshot): Promise<ViewModel> {
  const view = new ViewModel().show(saved);
  const hello = await host.request<{ snapshot?: ChatSnapshot }>("hello", { restore: saved.ref });
  if (!hello.snapshot) throw new Error("the reloaded view's session did not open");
  const catchUp = await host.request<CatchUp>("catchUp", { ref: saved.ref, afterSeq: view.conversation.lastSeq });
  if (catchUp.kind === "reset") view.show(catchUp.snapshot);
  else view.conversation.catchUp(catchUp);
  return view.skip(host);
}

/** Resolves once `file` (which may not exist yet) matches, re-checked on every change under `root` (bounded). */
export function fileMatchesUnder(root: string, file: string, pattern: RegExp): Promise<void> {
  const matches = () => existsSync(file) && pattern.test(readFileSync(file, "utf8"));
  return new Promise((resolve, reject) => {
    const watcher = watch(root, { recursive: true }, () => matches() && done());
    const timer = setTimeout(() => done(new Error(`${file} did not match ${pattern} in time`)), BOUND_MS);
    function done(error?: Error) {
      clearTimeout(timer);
      watcher.close();
      if (error) reject(error);
      else resolve();
    }
    if (matches()) done();
  });
}
