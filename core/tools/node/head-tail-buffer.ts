/**
 * Keeps the first and the last `limit` bytes of a stream and counts the rest, so a
 * command printing gigabytes costs bounded memory and still shows how it ended.
 */
export class HeadTailBuffer {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  total = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headBytes < this.limit) {
      const take = Math.min(this.limit - this.headBytes, chunk.length);
      this.head.push(chunk.subarray(0, take));
      this.headBytes += take;
      chunk = chunk.subarray(take);
      if (chunk.length === 0) return;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    // Drop whole chunks from the front while what is left still covers the limit.
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= this.limit) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  /** Whether bytes were dropped from the middle. */
  get dropped(): boolean {
    return this.total > 2 * this.limit;
  }

  /** The kept text; a marker shows where bytes were dropped. */
  toString(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    let tail = Buffer.concat(this.tail);
    if (tail.length > this.limit) tail = tail.subarray(tail.length - this.limit);
    const dropped = this.total - this.headBytes - tail.length;
    if (dropped <= 0) return head + tail.toString("utf8");
    return `${head}\n[… ${dropped.toLocaleString("en-US")} bytes of output dropped …]\n${tail.toString("utf8")}`;
  }
}
