import type { ContentBlock } from "../protocol";
import type { Draft, Session, SessionStoragePort } from "../session";

/**
 * Overwrites the session's draft with the current complete snapshot at most once per
 * interval (default 100 ms, ~10 writes a second); one write in flight at a time.
 */
export class DraftWriter {
  private lastWrite = 0;
  private inFlight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private latest: (() => readonly ContentBlock[]) | undefined;
  private failure: unknown;
  private closed = false;

  constructor(
    private readonly storage: Pick<SessionStoragePort, "writeDraft">,
    private readonly session: Session,
    private readonly meta: Omit<Draft, "blocks">,
    private readonly intervalMs = 100,
    private readonly now: () => number = Date.now,
    /** Sees each snapshot written (hosts' live views get the same throttle as the file). */
    private readonly onSnapshot?: (blocks: readonly ContentBlock[]) => void,
  ) {}

  /** Notes that the draft changed; `snapshot` is called only when a write happens. */
  update(snapshot: () => readonly ContentBlock[]): void {
    if (this.closed) return;
    this.latest = snapshot;
    if (this.inFlight || this.timer) return;
    const wait = this.lastWrite + this.intervalMs - this.now();
    if (wait <= 0) this.write();
    else
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.write();
      }, wait);
  }

  /** Stops writing and waits for the write in flight; throws the first write failure, if any. */
  async settle(): Promise<void> {
    this.closed = true;
    this.latest = undefined;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    await this.inFlight;
    if (this.failure) throw this.failure;
  }

  private write(): void {
    const snapshot = this.latest;
    if (!snapshot) return;
    this.latest = undefined;
    this.lastWrite = this.now();
    const blocks = snapshot();
    this.onSnapshot?.(blocks);
    this.inFlight = this.storage
      .writeDraft(this.session, { ...this.meta, blocks })
      .catch((err: unknown) => {
        this.failure ??= err;
      })
      .finally(() => {
        this.inFlight = undefined;
        if (this.latest) this.update(this.latest);
      });
  }
}
