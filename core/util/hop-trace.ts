import { appendFileSync } from "node:fs";

/**
 * Timestamps of the hops between Send and the first token (issue 19), read by
 * bench/host/first-figures.ts: with DOWNCITY_HOP_TRACE naming a file, each hop appends a
 * line `{"hop":…,"t":…}` (epoch ms, sub-millisecond, the clock the webview and the bench's
 * loopback server read too). Without it a hop is one comparison: nothing is kept or written.
 */
const file = process.env.DOWNCITY_HOP_TRACE || undefined;

export function hop(name: string): void {
  if (!file) return;
  try {
    appendFileSync(file, `${JSON.stringify({ hop: name, t: performance.timeOrigin + performance.now() })}\n`);
  } catch {
    // A trace that cannot be written changes nothing the user sees.
  }
}
