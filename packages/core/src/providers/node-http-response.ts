import { FetchHeaders } from './fetch-headers.js';

/** Statuses whose response has no body, whatever the server sends (the Fetch standard's "null body status"). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The parts of a fetch `Response` that the provider SDKs read: status, headers, the body as a web
 * `ReadableStream` of bytes (from node:stream/web, which does not load undici), and the body
 * readers. Built over a node:http response whose chunks are handed on as they arrive.
 */
export class NodeHttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly url: string;
  /** Whether the answer came after following one redirect or more (then `url` is the last one's). */
  readonly redirected: boolean;
  readonly type = 'basic';
  readonly headers: FetchHeaders;
  readonly body: ReadableStream<Uint8Array> | null;

  constructor(
    message: { statusCode?: number | undefined; statusMessage?: string | undefined; rawHeaders: string[] },
    url: string,
    body: ReadableStream<Uint8Array> | null,
    redirected = false,
  ) {
    this.status = message.statusCode ?? 0;
    this.statusText = message.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status <= 299;
    this.url = url;
    this.redirected = redirected;
    this.headers = FetchHeaders.fromRaw(message.rawHeaders);
    this.body = NULL_BODY_STATUSES.has(this.status) ? null : body;
  }

  get bodyUsed(): boolean {
    return this.body !== null && (this.body.locked || this.consumed);
  }

  private consumed = false;

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.consumed = true;
    if (!this.body) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    const reader = this.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    return Buffer.concat(chunks);
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get('content-type') ?? '' });
  }

  /** A second reader of the same body (the SDKs' middleware reads a clone). */
  clone(): NodeHttpResponse {
    if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed.');
    const copy = Object.create(NodeHttpResponse.prototype) as NodeHttpResponse;
    Object.assign(copy, this);
    if (this.body) {
      const [mine, theirs] = this.body.tee();
      Object.assign(this, { body: mine });
      Object.assign(copy, { body: theirs });
    }
    return copy;
  }
}

/** A body stream and the way to end it early with an error (an abort, a connection lost mid-body). */
export interface WebBody {
  stream: ReadableStream<Uint8Array>;
  fail(reason: unknown): void;
}

/**
 * The body of `message` as a web stream: each chunk enqueued as it arrives (so server-sent events
 * reach the SDK one by one), the socket paused while the reader is behind, and a cancel by the
 * reader destroying the request (and with it the socket).
 */
export function webBody(message: NodeJS.ReadableStream, cancel: (reason: unknown) => void): WebBody {
  let settled = false;
  let control: ReadableStreamDefaultController<Uint8Array> | undefined;
  const fail = (reason: unknown): void => {
    if (settled) return;
    settled = true;
    control?.error(reason);
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      control = controller;
      message.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) message.pause();
      });
      message.on('end', () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
    },
    pull() {
      message.resume();
    },
    cancel(reason) {
      settled = true;
      cancel(reason);
    },
  });
  return { stream, fail };
}
