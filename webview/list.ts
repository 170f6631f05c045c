import {
  Virtualizer,
  elementScroll,
  measureElement,
  observeElementOffset,
  observeElementRect,
} from "@tanstack/virtual-core";

export interface ListRow {
  key: string;
}

/** A scroll this soon after the reader's input (a wheel's smooth scroll runs on after it) is theirs. */
const READER_SCROLL_MS = 600;

/** Counted so tests assert that a streamed delta re-renders one row, not the list. */
export const listStats = { rowRenders: 0, draws: 0 };

/**
 * A virtualised list of variable-height rows: only rows on screen (plus overscan) are
 * in the DOM. Anchored to the end: it follows appends and growth while the user is at
 * the bottom, and keeps the visible row in place when rows are added above.
 */
export class VirtualList<T extends ListRow> {
  private items: readonly T[] = [];
  private readonly rows = new Map<string, HTMLElement>();
  private readonly dirty = new Set<string>();
  private readonly virtualizer: Virtualizer<HTMLElement, HTMLElement>;
  private frame = 0;
  /** Whether the reader was at the bottom at the last scroll (read before a resize moves it). */
  private atEnd = true;
  /** When the reader last scrolled by hand (wheel, touch, keys, scrollbar). */
  private readerAt = -Infinity;
  private readonly cleanup: () => void;
  /** A row to bring into view at the next draw. */
  private scrollTarget: string | undefined;
  /** A row was brought into view: the list stays off the end until the reader scrolls or asks for it. */
  private holding = false;

  constructor(
    private readonly scroller: HTMLElement,
    private readonly inner: HTMLElement,
    private readonly renderRow: (item: T, element: HTMLElement) => void,
    /** After each draw: what marks rendered rows (find matches) runs here. */
    private readonly afterDraw: () => void = () => {},
    /** Called when the reader leaves the end or comes back to it (the "Jump to latest" button). */
    private readonly onPinChange?: () => void,
  ) {
    this.virtualizer = new Virtualizer<HTMLElement, HTMLElement>({
      count: 0,
      getScrollElement: () => scroller,
      estimateSize: () => 96,
      getItemKey: (index) => this.items[index]?.key ?? index,
      observeElementRect,
      observeElementOffset,
      scrollToFn: elementScroll,
      measureElement,
      overscan: 3,
      anchorTo: "end",
      followOnAppend: true,
      scrollEndThreshold: 24,
      indexAttribute: "data-index",
      onChange: () => this.schedule(),
    });
    const unmount = this.virtualizer._didMount();
    // Only the reader unpins (wheel, touch, scrollbar drag, keys, a jump away): the
    // virtualizer's own corrections also scroll, up by tens of pixels as well as down, and
    // must not leave a pinned reader behind.
    let dragging = false;
    const reader = () => {
      this.readerAt = performance.now();
      this.holding = false;
    };
    const onScroll = () => {
      const gap = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight;
      // A scroll still landing from before a row was brought into view must not re-pin over it.
      if (gap <= 24) this.pin(!this.holding);
      // A jump of more than a screen is never a correction (a link, find, or a script did it).
      else if (dragging || performance.now() - this.readerAt < READER_SCROLL_MS || gap > scroller.clientHeight)
        this.pin(false);
    };
    const onPointerDown = (e: Event) => {
      // On the scrollbar only (past the content box): a click on a row's button is not a scroll.
      if (e.target !== scroller || (e as PointerEvent).offsetX < scroller.clientWidth) return;
      dragging = true;
      reader();
    };
    const onPointerUp = () => {
      if (!dragging) return;
      dragging = false;
      reader();
    };
    const inputs: [EventTarget, string, EventListener][] = [
      [scroller, "scroll", onScroll],
      [scroller, "wheel", reader],
      [scroller, "touchmove", reader],
      [scroller, "keydown", reader],
      [scroller, "pointerdown", onPointerDown],
      [window, "pointerup", onPointerUp],
    ];
    for (const [target, type, listener] of inputs) target.addEventListener(type, listener, { passive: true });
    // The virtualizer follows growth of the content only while it thinks the reader is at
    // the end, and never a shrinking viewport (a panel resized, a taller composer): both
    // re-pin a reader who is pinned.
    const resize = new ResizeObserver(() => this.atEnd && this.scrollToEnd());
    resize.observe(scroller);
    resize.observe(inner);
    this.cleanup = () => {
      unmount();
      for (const [target, type, listener] of inputs) target.removeEventListener(type, listener);
      resize.disconnect();
    };
  }

  /** New row list (same keys keep their DOM; `changed` keys re-render). */
  setItems(items: readonly T[], changed: Iterable<string>): void {
    this.items = items;
    for (const key of changed) this.dirty.add(key);
    this.virtualizer.setOptions({ ...this.virtualizer.options, count: items.length });
    this.schedule();
  }

  /** Pins the reader to the end and goes there (the user sent a message: show its answer). */
  follow(): void {
    // Whatever the reader's last wheel still scrolls, they asked for the end now.
    this.readerAt = -Infinity;
    this.holding = false;
    this.pin(true);
    this.scrollToEnd();
  }

  /** Whether the list follows the end (false once the reader scrolled up). */
  get pinned(): boolean {
    return this.atEnd;
  }

  private pin(atEnd: boolean): void {
    if (this.atEnd === atEnd) return;
    this.atEnd = atEnd;
    this.onPinChange?.();
  }

  /** Brings a row to the middle of the view (a find match, a revealed message); the reader is no longer pinned to the end. */
  scrollToKey(key: string): void {
    const index = this.items.findIndex((i) => i.key === key);
    if (index < 0) return;
    if (index < this.items.length - 1) this.pin(false);
    this.holding = index < this.items.length - 1;
    // At the next draw, after the virtualizer applied its own anchoring for rows just added
    // above (which would otherwise move the view back by their height).
    this.scrollTarget = key;
    this.schedule();
  }

  /** The rows in the DOM now, by key. */
  renderedRows(): IterableIterator<[string, HTMLElement]> {
    return this.rows.entries();
  }

  scrollToEnd(): void {
    this.holding = false;
    if (this.items.length) this.virtualizer.scrollToIndex(this.items.length - 1, { align: "end" });
  }

  /** Renders now (tests and the first paint); otherwise once per animation frame. */
  flush(): void {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.draw();
  }

  dispose(): void {
    cancelAnimationFrame(this.frame);
    this.cleanup();
  }

  private schedule(): void {
    if (!this.frame)
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.draw();
      });
  }

  private draw(): void {
    listStats.draws++;
    // What stands above the rows in the scroller (the history bar): the virtualizer counts it in every offset.
    const margin = this.inner.offsetTop;
    if (margin !== this.virtualizer.options.scrollMargin)
      this.virtualizer.setOptions({ ...this.virtualizer.options, scrollMargin: margin });
    this.virtualizer._willUpdate();
    if (this.scrollTarget !== undefined) {
      const key = this.scrollTarget;
      this.scrollTarget = undefined;
      const index = this.items.findIndex((i) => i.key === key);
      if (index >= 0) this.virtualizer.scrollToIndex(index, { align: "center" });
    }
    const visible = this.virtualizer.getVirtualItems();
    const keep = new Set<string>();
    this.inner.style.height = `${this.virtualizer.getTotalSize()}px`;
    for (const v of visible) {
      const item = this.items[v.index];
      if (!item) continue;
      keep.add(item.key);
      let row = this.rows.get(item.key);
      const fresh = !row;
      if (!row) {
        row = document.createElement("div");
        row.className = "row";
        row.dataset.key = item.key;
        this.rows.set(item.key, row);
        this.inner.append(row);
      }
      row.dataset.index = String(v.index);
      row.style.transform = `translateY(${v.start - margin}px)`;
      if (fresh || this.dirty.has(item.key)) {
        listStats.rowRenders++;
        this.renderRow(item, row);
        this.dirty.delete(item.key);
      }
      this.virtualizer.measureElement(row);
    }
    for (const [key, row] of this.rows) {
      if (keep.has(key)) continue;
      // A row that gets focus stays while it has it (keyboard users do not lose their place).
      if (row.contains(document.activeElement)) continue;
      row.remove();
      this.rows.delete(key);
    }
    if (visible.length && !performance.getEntriesByName("downcity:rows").length) performance.mark("downcity:rows");
    // Keys that left the list for good drop their pending re-render.
    if (this.dirty.size > 256) this.dirty.clear();
    this.afterDraw();
  }
}
