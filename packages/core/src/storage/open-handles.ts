/** Something that holds a descriptor (or more) until closed; `idle: false` means it is in use and must stay open. */
export interface Closable {
  close(): void;
  readonly idle?: boolean;
}

/**
 * Objects kept open for reuse, at most `limit` of them: opening one more first
 * closes the least recently used idle ones. A closed object must work again when
 * used (it reopens what it needs), so a caller still holding one is safe.
 */
export class OpenHandles<T extends Closable> {
  /** Most recently used last: the map's order is the order they are closed in. */
  private readonly open = new Map<string, T>();

  constructor(private readonly limit: number) {}

  /** The key used last: it is already at the map's end. */
  private latest: string | undefined;

  /** The open object for `key`, marked as just used. */
  get(key: string): T | undefined {
    const handle = this.open.get(key);
    if (handle === undefined) return undefined;
    // A turn looks its log up several times in a row: moving it again would only churn the map's
    // table, and a long-lived map's new tables outlive young-generation GCs (bench/memory-runs.mjs).
    if (key !== this.latest) {
      this.open.delete(key);
      this.open.set(key, handle);
      this.latest = key;
    }
    return handle;
  }

  /** The open object for `key`, or the one `open` makes, after making room for it. */
  getOrOpen(key: string, open: () => T): T {
    return this.get(key) ?? this.add(key, open());
  }

  add(key: string, handle: T): T {
    let excess = this.open.size - this.limit + 1;
    for (const [openKey, open] of this.open) {
      if (excess <= 0) break;
      if (open.idle === false) continue;
      open.close();
      this.open.delete(openKey);
      if (openKey === this.latest) this.latest = undefined;
      excess--;
    }
    this.open.set(key, handle);
    this.latest = key;
    return handle;
  }

  /** Closes and forgets the object for `key`, if one is open. */
  delete(key: string): void {
    this.open.get(key)?.close();
    this.open.delete(key);
    if (key === this.latest) this.latest = undefined;
  }

  values(): IterableIterator<T> {
    return this.open.values();
  }

  closeAll(): void {
    for (const handle of this.open.values()) handle.close();
    this.open.clear();
    this.latest = undefined;
  }
}
