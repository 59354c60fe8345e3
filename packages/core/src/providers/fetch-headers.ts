/**
 * The Fetch standard's `Headers`, without undici. Touching Node's global `Headers` loads all of
 * undici (some 20 ms of CPU), and the provider SDKs make one for every request; the CLI's bundle
 * gives the SDKs this class in its place (packages/cli/scripts/build.mjs, "sdk-headers") and
 * node-http-fetch.ts answers with it. It behaves as undici's: names are checked and lowercased,
 * values checked and trimmed, repeated names joined with ", " (`set-cookie` kept apart), and
 * iteration is in sorted order. A response's headers are immutable.
 */
export class FetchHeaders implements Iterable<[string, string]> {
  private readonly byName = new Map<string, string>();
  private cookies: string[] = [];
  private immutable: boolean;

  constructor(init?: Iterable<readonly [string, string]> | Record<string, string> | null) {
    this.immutable = false;
    if (init !== undefined && init !== null) {
      if (typeof init !== 'object')
        throw new TypeError('Headers constructor: argument must be an object, an iterable of pairs or a Headers');
      if (Symbol.iterator in init) {
        for (const pair of init as Iterable<readonly unknown[]>) {
          if (!pair || typeof pair !== 'object' || pair.length !== 2)
            throw new TypeError('Headers constructor: expected name/value pair to be length 2, found ' + String(pair?.length));
          this.append(String(pair[0]), String(pair[1]));
        }
      } else {
        for (const [name, value] of Object.entries(init as Record<string, unknown>)) this.append(name, String(value));
      }
    }
  }

  /** A response's headers from node:http's `rawHeaders` (name, value, name, value…), immutable. */
  static fromRaw(raw: readonly string[]): FetchHeaders {
    const headers = new FetchHeaders();
    for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index] as string, raw[index + 1] as string);
    headers.immutable = true;
    return headers;
  }

  append(name: string, value: string): void {
    const key = checkedName(name, 'append');
    const text = checkedValue(value, name, 'append');
    this.writable();
    if (key === 'set-cookie') this.cookies.push(text);
    const previous = this.byName.get(key);
    this.byName.set(key, previous === undefined ? text : `${previous}, ${text}`);
  }

  set(name: string, value: string): void {
    const key = checkedName(name, 'set');
    const text = checkedValue(value, name, 'set');
    this.writable();
    if (key === 'set-cookie') this.cookies = [text];
    this.byName.set(key, text);
  }

  delete(name: string): void {
    const key = checkedName(name, 'delete');
    this.writable();
    if (key === 'set-cookie') this.cookies = [];
    this.byName.delete(key);
  }

  get(name: string): string | null {
    return this.byName.get(checkedName(name, 'get')) ?? null;
  }

  has(name: string): boolean {
    return this.byName.has(checkedName(name, 'has'));
  }

  getSetCookie(): string[] {
    return [...this.cookies];
  }

  forEach(callback: (value: string, name: string, headers: FetchHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this) callback.call(thisArg, value, name, this);
  }

  /** Sorted by name, as the standard's "sort and combine"; each `set-cookie` on its own. */
  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.byName.keys()].sort()) {
      if (name === 'set-cookie') for (const cookie of this.cookies) yield [name, cookie];
      else yield [name, this.byName.get(name) as string];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  private writable(): void {
    if (this.immutable) throw new TypeError('immutable');
  }
}

/** RFC 9110's token: what a header name may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Leading and trailing HTTP whitespace, which the standard strips from values. */
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

function checkedName(name: string, method: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Headers.${method}: "${text}" is an invalid header name.`);
  return text.toLowerCase();
}

/** A value may not carry NUL, CR or LF (a second header smuggled into the request). */
function checkedValue(value: string, name: string, method: string): string {
  const text = String(value).replace(EDGE_WHITESPACE, '');
  if (/[\0\r\n]/.test(text)) throw new TypeError(`Headers.${method}: "${text}" is an invalid header value for "${name}".`);
  return text;
}
