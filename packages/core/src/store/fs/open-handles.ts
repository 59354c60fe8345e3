/** Something that holds a descriptor (or more) until closed; `idle: false` means it is in use and must stay open. */
export interface Closable {
  close(): void;
  readonly idle?: boolean;
}

/**
 * Objects kept open for reuse, at most `limit` of them: opening one more first
 * closes the least recently used idle ones. A closed object must work again when
 * used (it reopens what it needs), so a caller still holding one is safe.
 *
 * Fixed slots, not a Map: a long-lived Map whose keys keep changing (a new
 * conversation per request) rebuilds its table again and again, and V8 links each
 * discarded table to its successor. Those discarded tables sit in the old
 * generation and keep every entry of their successors alive through
 * young-generation GCs, so each object that passed through was promoted and stayed
 * until a full GC: about half of what a long-lived process promoted
 * (bench/memory-runs.mjs). Overwriting slots in place allocates nothing.
 */
export class OpenHandles<T extends Closable> {
  private readonly keys: (string | undefined)[] = [];
  private readonly handles: (T | undefined)[] = [];
  /** When each slot was last used (a counter): the smallest is the least recently used. */
  private readonly used: number[] = [];
  private clock = 0;
  private count = 0;
  /** The slot `get` found last. */
  private lastSlot = 0;

  constructor(private readonly limit: number) {}

  /** The open object for `key`, marked as just used. */
  get(key: string): T | undefined {
    // A turn appends to one conversation again and again: its slot is tried before the scan.
    const slot = this.keys[this.lastSlot] === key ? this.lastSlot : this.keys.indexOf(key);
    if (slot < 0) return undefined;
    this.lastSlot = slot;
    this.used[slot] = ++this.clock;
    return this.handles[slot];
  }

  /** The open object for `key`, or the one `open` makes, after making room for it. */
  getOrOpen(key: string, open: () => T): T {
    return this.get(key) ?? this.add(key, open());
  }

  add(key: string, handle: T): T {
    const existing = this.keys.indexOf(key);
    if (existing >= 0) {
      this.handles[existing] = handle;
      this.used[existing] = ++this.clock;
      return handle;
    }
    // Make room: close the least recently used idle ones; busy ones stay open, beyond the limit if need be.
    while (this.count >= this.limit) {
      const victim = this.leastRecentlyUsedIdle();
      if (victim < 0) break;
      this.handles[victim]!.close();
      this.clear(victim);
    }
    let slot = this.keys.indexOf(undefined);
    if (slot < 0) slot = this.keys.length;
    this.keys[slot] = key;
    this.handles[slot] = handle;
    this.used[slot] = ++this.clock;
    this.count++;
    return handle;
  }

  /** Closes and forgets the object for `key`, if one is open. */
  delete(key: string): void {
    const slot = this.keys.indexOf(key);
    if (slot < 0) return;
    this.handles[slot]!.close();
    this.clear(slot);
  }

  /** The open objects, in no particular order. */
  *values(): IterableIterator<T> {
    for (let slot = 0; slot < this.keys.length; slot++) if (this.keys[slot] !== undefined) yield this.handles[slot]!;
  }

  closeAll(): void {
    for (let slot = 0; slot < this.keys.length; slot++) {
      if (this.keys[slot] === undefined) continue;
      this.handles[slot]!.close();
      this.clear(slot);
    }
  }

  private leastRecentlyUsedIdle(): number {
    let victim = -1;
    for (let slot = 0; slot < this.keys.length; slot++) {
      if (this.keys[slot] === undefined || this.handles[slot]!.idle === false) continue;
      if (victim < 0 || this.used[slot]! < this.used[victim]!) victim = slot;
    }
    return victim;
  }

  private clear(slot: number): void {
    this.keys[slot] = undefined;
    this.handles[slot] = undefined;
    this.count--;
  }
}
