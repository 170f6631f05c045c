// A loopback model for the UI tests: one scripted reply per request, in order, and a way
// to wait for the n-th request's body as an event instead of for time.
import { wire, type ScriptedReply } from "./provider-server";
import { withTimeout } from "./with-timeout";

/** `handler` serves the replies in order; `request(n)` resolves with the n-th (0-based) request's body once it arrived (within `ms`). */
export function scriptedModel(replies: ((body: any) => ScriptedReply)[]) {
  const arrived: { promise: Promise<any>; resolve(body: any): void }[] = [];
  const slot = (n: number) => {
    while (arrived.length <= n) {
      let resolve!: (body: any) => void;
      const promise = new Promise<any>((r) => (resolve = r));
      arrived.push({ promise, resolve });
    }
    return arrived[n]!;
  };
  let count = 0;
  return {
    handler: (req: { body: any }): ScriptedReply => {
      const n = count++;
      slot(n).resolve(req.body);
      const reply = replies[n];
      return reply ? reply(req.body) : wire.error("openai-chat", 400, `unexpected request #${n + 1}`);
    },
    request: (n: number, what: string, ms = 30_000) => withTimeout(slot(n).promise, ms, `request #${n + 1} (${what})`),
  };
}
