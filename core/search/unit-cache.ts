import type { UnitEntry } from "./units";

/**
 * Decoded units kept between searches, least recently used out first, bounded by the text
 * they hold. Typing a query re-reads the same candidate sessions keystroke after
 * keystroke; a closed segment is immutable and an Active log is keyed by its file stamp,
 * so a cached unit is what a read would give. Entries are shared: callers never mutate them.
 */
export class UnitCache {
  private readonly entries = new Map<string, { value: UnitEntry[]; size: number }>();
  private held = 0;
  readonly stats = { hits: 0, misses: 0 };

  constructor(private readonly maxChars: number) {}

  get(key: string): UnitEntry[] | undefined {
    const found = this.entries.get(key);
    if (!found) {
      this.stats.misses++;
      return undefined;
    }
    this.stats.hits++;
    this.entries.delete(key);
    this.entries.set(key, found);
    return found.value;
  }

  set(key: string, value: UnitEntry[]): void {
    let size = 64;
    for (const entry of value) {
      size += 64;
      for (const field of entry.fields) size += field.text.length + 32;
    }
    if (size > this.maxChars / 4) return; // one huge unit would flush everything else
    const old = this.entries.get(key);
    if (old) {
      this.held -= old.size;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, size });
    this.held += size;
    for (const [k, v] of this.entries) {
      if (this.held <= this.maxChars) break;
      this.entries.delete(k);
      this.held -= v.size;
    }
  }

  /** Characters held (UTF-16 units of text plus a fixed cost per entry). */
  get size(): number {
    return this.held;
  }

  /** Units held. */
  get count(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }
}

/** This process' cache: ~16 M characters (~32 MiB of strings) at most. */
export const unitCache = new UnitCache(16 * 2 ** 20);
