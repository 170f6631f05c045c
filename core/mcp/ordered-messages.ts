import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

type Message = Parameters<NonNullable<Transport["onmessage"]>>;

/**
 * The SDK runs a notification's handler in a microtask but settles a response at once, and
 * settling a call removes its progress handler. When progress and the result arrive in one
 * read (a busy client reads a burst), the progress the server sent first was dropped. This
 * holds a response that follows a notification back to the next macrotask, after the
 * notification handlers have run; the order of messages is kept. Call after `connect`: it
 * wraps the handlers the SDK installed on the transport.
 */
export function settleResponsesAfterNotifications(transport: Transport): void {
  const deliver = transport.onmessage;
  const close = transport.onclose;
  if (!deliver) return;
  const queue: Message[] = [];
  /** A notification was delivered in this macrotask: its handler has not run yet. */
  let notified = false;
  let scheduled = false;

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(drain);
  };
  const hand = (message: Message) => {
    if (isNotification(message[0])) {
      notified = true;
      schedule();
    }
    deliver(...message);
  };
  function drain(): void {
    scheduled = false;
    notified = false;
    while (queue.length) {
      if (notified && isResponse(queue[0]![0])) return schedule();
      hand(queue.shift()!);
    }
  }

  transport.onmessage = (...message: Message) => {
    if (queue.length || (notified && isResponse(message[0]))) {
      queue.push(message);
      return schedule();
    }
    hand(message);
  };
  transport.onclose = () => {
    // Whatever arrived before the close is delivered first: a result the server sent before it exited.
    while (queue.length) deliver(...queue.shift()!);
    close?.();
  };
}

// Shape checks only (no schema parse): a huge result is not walked twice.
const isNotification = (m: object) => "method" in m && !("id" in m);
const isResponse = (m: object) => "id" in m && !("method" in m);
