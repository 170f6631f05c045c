import type { ContentBlock } from "../protocol";

export type InboxKind = "followup" | "steer" | "retry";
export interface InboxItem {
  kind: InboxKind;
  content: ContentBlock[];
  /** The `user/queued` event that showed it while it waited. */
  queuedSeq?: number;
  /** For "retry": the failed turn's `turn/end` seq. */
  retryOf?: number;
}

/**
 * User input waiting for the loop. A follow-up starts (or waits for) the next turn; a
 * steer is taken at the next step of the running turn, or starts a turn when idle.
 */
export class Inbox {
  private readonly items: InboxItem[] = [];

  push(kind: InboxKind, content: ContentBlock[], extra: Pick<InboxItem, "queuedSeq" | "retryOf"> = {}): void {
    this.items.push({ kind, content, ...extra });
  }

  /** What the next turn starts with (a retry says which turn it retries). */
  peek(): InboxItem | undefined {
    return this.items[0];
  }

  get size(): number {
    return this.items.length;
  }

  /** Input for the first step of a turn: everything queued. */
  claimAll(): InboxItem[] {
    return this.items.splice(0);
  }

  /** How many steers wait for the next step. */
  pendingSteers(): number {
    return this.items.filter((item) => item.kind === "steer").length;
  }

  /** Input for a later step of a running turn: only steers (follow-ups wait for their turn). */
  claimSteers(): InboxItem[] {
    const steers = this.items.filter((item) => item.kind === "steer");
    if (steers.length === 0) return [];
    const rest = this.items.filter((item) => item.kind !== "steer");
    this.items.splice(0, this.items.length, ...rest);
    return steers;
  }
}
