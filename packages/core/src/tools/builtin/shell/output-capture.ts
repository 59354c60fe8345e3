/**
 * Keeps the first and the last bytes of a stream and counts what fell between,
 * so that a command printing megabytes costs bounded memory and still shows
 * how it started and how it ended.
 */
export class OutputCapture {
  private head: Buffer[] = [];
  private headBytes = 0;
  /** Chunks of the tail, oldest first; trimmed from the front to `tailLimit`. */
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;
  private readonly headLimit: number;
  private readonly tailLimit: number;

  constructor(limitBytes: number) {
    this.headLimit = Math.floor(limitBytes / 2);
    this.tailLimit = limitBytes - this.headLimit;
  }

  /** Bytes written since the last `take()`. */
  get totalBytes(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const room = this.headLimit - this.headBytes;
      this.head.push(rest.subarray(0, room));
      this.headBytes += Math.min(room, rest.length);
      rest = rest.subarray(room);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= this.tailLimit) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  /** What was captured, with the size of any cut said where it happened. */
  render(transform: (text: string) => string = (text) => text): string {
    const head = Buffer.concat(this.head);
    const tailBuffer = Buffer.concat(this.tail);
    const tail = tailBuffer.subarray(Math.max(0, tailBuffer.length - this.tailLimit));
    const cut = this.total - head.length - tail.length;
    if (cut <= 0) return transform(Buffer.concat([head, tail]).toString('utf8'));
    return `${transform(head.toString('utf8'))}\n… [${cut} bytes cut] …\n${transform(tail.toString('utf8'))}`;
  }

  /** Renders and starts over: for "new output since the last poll". */
  take(transform?: (text: string) => string): { text: string; bytes: number } {
    const taken = { text: this.render(transform), bytes: this.total };
    this.head = [];
    this.headBytes = 0;
    this.tail = [];
    this.tailBytes = 0;
    this.total = 0;
    return taken;
  }
}
