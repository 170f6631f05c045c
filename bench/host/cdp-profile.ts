// A CPU profile of a Node process through its inspector (the Chrome DevTools Protocol over
// Node's WebSocket: run with --experimental-websocket on Node 20). The tree-scale bench
// uses it on the extension host (BENCH_TREE_PROFILE) to see where the first row's wait goes.
import { writeFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface Profiler {
  /** When sampling started (ms since the epoch, this machine's clock): where the profile's own clock begins. */
  startedAt: number;
  stop(file: string): Promise<string>;
  /** The profile taken by `stop`. */
  profile?: Profile;
}

/** Waits for the inspector on 127.0.0.1:`port`, then starts sampling every `intervalUs`. */
export async function startProfiler(port: number, intervalUs = 200, timeoutMs = 120_000): Promise<Profiler> {
  const Socket = (globalThis as unknown as { WebSocket?: typeof WebSocket }).WebSocket;
  if (!Socket) throw new Error("no WebSocket: run node with --experimental-websocket");
  const deadline = Date.now() + timeoutMs;
  let url: string | undefined;
  while (!url) {
    try {
      const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
        webSocketDebuggerUrl: string;
      }[];
      url = targets[0]?.webSocketDebuggerUrl;
    } catch {
      if (Date.now() > deadline) throw new Error(`no inspector on port ${port}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const socket = new Socket(url);
  await new Promise((ok, fail) => {
    socket.onopen = ok;
    socket.onerror = fail;
  });
  let next = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.onmessage = (m: MessageEvent) => {
    const msg = JSON.parse(String(m.data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg.result);
  };
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((ok) => {
      const id = next++;
      waiting.set(id, ok);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: intervalUs });
  await send("Profiler.start");
  const startedAt = performance.timeOrigin + performance.now();
  const profiler: Profiler = {
    startedAt,
    async stop(file) {
      const { profile } = (await send("Profiler.stop")) as { profile: Profile };
      socket.close();
      writeFileSync(file, JSON.stringify(profile));
      profiler.profile = profile;
      return summarize(profile);
    },
  };
  return profiler;
}

/** Self time by function and by script, the largest first. */
export function summarize(profile: Profile): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const fns = new Map<string, number>();
  const files = new Map<string, number>();
  for (const [id, ms] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const file = url.replace(/^.*\//, "") || "(native)";
    const key = `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + ms);
    files.set(file, (files.get(file) ?? 0) + ms);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, ms]) => `  ${ms.toFixed(0).padStart(6)} ms  ${k}`)
      .join("\n");
  const total = (profile.endTime - profile.startTime) / 1000;
  return `profile over ${total.toFixed(0)} ms\nby script:\n${top(files, 12)}\nby function:\n${top(fns, 30)}`;
}

/**
 * What a profile's thread did between two instants (ms on the profile's own clock from its start):
 * its idle and its busiest entries, each "script" or "(native) function", the largest first.
 */
export function windowSummary(profile: Profile, fromMs: number, toMs: number, top = 4, byFunction = false): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const spent = new Map<string, number>();
  let at = 0;
  profile.samples.forEach((id, i) => {
    const delta = (profile.timeDeltas[i] ?? 0) / 1000;
    at += delta;
    if (at < fromMs || at > toMs) return;
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const file = url.replace(/^.*\//, "").replace(/\?.*$/, "");
    const key = !url
      ? functionName || "(native)"
      : byFunction
        ? `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`
        : file;
    spent.set(key, (spent.get(key) ?? 0) + delta);
  });
  return [...spent]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, ms]) => `${k} ${ms.toFixed(0)}`)
    .join(", ");
}
