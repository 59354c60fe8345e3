/** Output beyond this (per stream) is not kept in memory: a tool printing gigabytes must not take the process down. */
export const MAX_CAPTURED_BYTES = 1024 * 1024;

/**
 * Collects a stream's bytes, keeping the first and the last half of the limit
 * and counting what fell between, so a long log keeps both how it started and
 * how it ended.
 */
export class BoundedOutput {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private cutBytes = 0;
  private readonly half: number;

  constructor(limit = MAX_CAPTURED_BYTES) {
    this.half = Math.max(1, Math.floor(limit / 2));
  }

  push(chunk: Buffer): void {
    let rest = chunk;
    if (this.headBytes < this.half) {
      const take = rest.subarray(0, this.half - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      rest = rest.subarray(take.length);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tailBytes > this.half) {
      const first = this.tail[0]!;
      const excess = this.tailBytes - this.half;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
        this.cutBytes += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
        this.cutBytes += excess;
      }
    }
  }

  text(): string {
    // Decoded together when nothing was cut, so a character split across the halves stays whole.
    if (this.cutBytes === 0) return Buffer.concat([...this.head, ...this.tail]).toString('utf8');
    return `${Buffer.concat(this.head).toString('utf8')}\n… [${this.cutBytes} bytes cut] …\n${Buffer.concat(this.tail).toString('utf8')}`;
  }
}
