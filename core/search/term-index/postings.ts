/**
 * Word → units postings. Loaded postings stay in their compact on-disk form (delta
 * varints in one buffer) and are decoded only for the words a query touches; units
 * indexed since are kept as plain arrays until the next snapshot.
 */
export class Postings {
  private readonly ids = new Map<string, number>();
  private readonly words: string[] = [];
  /** Loaded (snapshot) postings: offset and length into `blob`, per word id. */
  private base: { blob: Buffer; at: Uint32Array; len: Uint32Array } | undefined;
  private readonly tail: number[][] = [];
  /** All words joined by "\n": substring lookups are one native indexOf loop. */
  private joined: { text: string; starts: Int32Array } | undefined;

  get size(): number {
    return this.words.length;
  }

  private wordId(word: string): number {
    let id = this.ids.get(word);
    if (id === undefined) {
      id = this.words.length;
      this.ids.set(word, id);
      this.words.push(word);
      this.tail.push([]);
      this.joined = undefined;
    }
    return id;
  }

  /** Records that `unit` holds each of `words` (units are added in increasing id order). */
  add(unit: number, words: Iterable<string>): void {
    for (const word of words) this.tail[this.wordId(word)]!.push(unit);
  }

  /** Word ids of the dictionary words that contain `term`. */
  containing(term: string): number[] {
    if (!this.joined) {
      const starts = new Int32Array(this.words.length);
      let at = 0;
      for (let i = 0; i < this.words.length; i++) {
        starts[i] = at;
        at += this.words[i]!.length + 1;
      }
      this.joined = { text: this.words.join("\n"), starts };
    }
    const { text, starts } = this.joined;
    const out: number[] = [];
    let from = 0;
    for (;;) {
      const at = text.indexOf(term, from);
      if (at < 0) break;
      // The word holding `at`: the last start <= at.
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= at) lo = mid;
        else hi = mid - 1;
      }
      out.push(lo);
      // Next word: a word is counted once however often the term occurs in it.
      from = lo + 1 < starts.length ? starts[lo + 1]! : text.length;
    }
    return out;
  }

  /** Encoded size of the words' postings (a tail posting counted as one byte): what decoding them costs. */
  encodedBytes(words: readonly number[]): number {
    let bytes = 0;
    for (const w of words)
      bytes += (this.base && w < this.base.len.length ? this.base.len[w]! : 0) + this.tail[w]!.length;
    return bytes;
  }

  /** Calls `fn` with every unit of a word. */
  forEachUnit(word: number, fn: (unit: number) => void): void {
    const base = this.base;
    if (base && word < base.at.length) {
      let pos = base.at[word]!;
      const end = pos + base.len[word]!;
      let unit = 0;
      while (pos < end) {
        let delta = 0;
        let shift = 0;
        let byte: number;
        do {
          byte = base.blob[pos++]!;
          delta += (byte & 0x7f) * 2 ** shift;
          shift += 7;
        } while (byte & 0x80);
        unit += delta;
        fn(unit);
      }
    }
    for (const unit of this.tail[word]!) fn(unit);
  }

  /**
   * The snapshot form: words and one buffer of delta-varint postings, leaving out units
   * `dead` says are gone (the postings are compacted as they are written).
   */
  serialize(dead: (unit: number) => boolean): { words: string[]; at: number[]; len: number[]; blob: Buffer } {
    const chunks: Buffer[] = [];
    const words: string[] = [];
    const at: number[] = [];
    const len: number[] = [];
    let offset = 0;
    const scratch = Buffer.allocUnsafe(1 << 16);
    for (let w = 0; w < this.words.length; w++) {
      let n = 0;
      let prev = 0;
      let pieces: Buffer[] = [];
      let size = 0;
      const put = (unit: number) => {
        if (dead(unit) || unit < prev || (unit === prev && size + n > 0)) return;
        let delta = unit - prev;
        prev = unit;
        if (n + 10 > scratch.length) {
          pieces.push(Buffer.from(scratch.subarray(0, n)));
          size += n;
          n = 0;
        }
        while (delta >= 0x80) {
          scratch[n++] = (delta % 0x80) | 0x80;
          delta = Math.floor(delta / 0x80);
        }
        scratch[n++] = delta;
      };
      this.forEachUnit(w, put);
      if (n > 0) pieces.push(Buffer.from(scratch.subarray(0, n)));
      size += n;
      if (size === 0) continue;
      words.push(this.words[w]!);
      at.push(offset);
      len.push(size);
      chunks.push(...pieces);
      offset += size;
      pieces = [];
    }
    return { words, at, len, blob: Buffer.concat(chunks, offset) };
  }

  static load(words: readonly string[], at: readonly number[], len: readonly number[], blob: Buffer): Postings {
    const p = new Postings();
    for (const word of words) p.wordId(word);
    p.base = { blob, at: Uint32Array.from(at), len: Uint32Array.from(len) };
    return p;
  }
}
