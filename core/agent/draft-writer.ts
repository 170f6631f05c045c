import type { ContentBlock } from "../protocol";
import type { Draft, Session, SessionStoragePort } from "../session";

/**
 * Overwrites the session's draft with the current complete snapshot at most once per
 * interval (default 100 ms, ~10 writes a second); one write in flight at a time.
 *
 * The live views (`onSnapshot`) keep the same interval on a clock of their own: a write in
 * flight (an fsync can take a quarter second on a busy disk) never holds back what the
 * user sees, and the first text shows as soon as it arrives (issue 19, first token). A
 * snapshot with nothing in it yet (the stream's opening role-only delta) is neither shown
 * nor written, so it does not spend the interval the first real text needs.
 */
export class DraftWriter {
  private lastWrite = -Infinity;
  private lastShown = -Infinity;
  private inFlight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private showTimer: NodeJS.Timeout | undefined;
  private latest: (() => readonly ContentBlock[]) | undefined;
  private unshown: (() => readonly ContentBlock[]) | undefined;
  private failure: unknown;
  private closed = false;

  constructor(
    private readonly storage: Pick<SessionStoragePort, "writeDraft">,
    private readonly session: Session,
    private readonly meta: Omit<Draft, "blocks">,
    private readonly intervalMs = 100,
    private readonly now: () => number = Date.now,
    /** Sees the snapshots the live views show (throttled like the file, never waiting for it). */
    private readonly onSnapshot?: (blocks: readonly ContentBlock[]) => void,
  ) {}

  /** Notes that the draft changed; `snapshot` is called only when a write or a view update happens. */
  update(snapshot: () => readonly ContentBlock[]): void {
    if (this.closed) return;
    this.latest = snapshot;
    if (this.onSnapshot) {
      this.unshown = snapshot;
      if (!this.showTimer) {
        const wait = this.lastShown + this.intervalMs - this.now();
        if (wait <= 0) this.show();
        else
          this.showTimer = setTimeout(() => {
            this.showTimer = undefined;
            this.show();
          }, wait);
      }
    }
    this.scheduleWrite();
  }

  /**
   * Stops writing and waits for the write in flight; throws the first write failure, if any.
   * The views get the newest snapshot first: the end of the stream does not wait for the disk.
   */
  async settle(): Promise<void> {
    if (this.showTimer) {
      clearTimeout(this.showTimer);
      this.showTimer = undefined;
    }
    if (!this.closed) this.show();
    this.closed = true;
    this.latest = this.unshown = undefined;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    await this.inFlight;
    if (this.failure) throw this.failure;
  }

  private show(): void {
    const snapshot = this.unshown;
    if (!snapshot || !this.onSnapshot) return;
    const blocks = snapshot();
    if (!blocks.some(carries)) return;
    this.unshown = undefined;
    this.lastShown = this.now();
    this.onSnapshot(blocks);
  }

  private scheduleWrite(): void {
    if (this.inFlight || this.timer || !this.latest) return;
    const wait = this.lastWrite + this.intervalMs - this.now();
    if (wait <= 0) this.write();
    else
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.write();
      }, wait);
  }

  private write(): void {
    const snapshot = this.latest;
    if (!snapshot) return;
    const blocks = snapshot();
    // Kept as the latest: the next update (the first real text) writes at once.
    if (!blocks.some(carries)) return;
    this.latest = undefined;
    this.lastWrite = this.now();
    this.inFlight = this.storage
      .writeDraft(this.session, { ...this.meta, blocks })
      .catch((err: unknown) => {
        this.failure ??= err;
      })
      .finally(() => {
        this.inFlight = undefined;
        if (!this.closed) this.scheduleWrite();
      });
  }
}

/** A block with something to show or keep: text or reasoning that is not empty, or any other block (a tool call). */
function carries(block: ContentBlock): boolean {
  return block.type === "text" || block.type === "reasoning" ? block.text !== "" : true;
}
