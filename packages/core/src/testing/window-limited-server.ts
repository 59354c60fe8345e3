import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadTokenCounter, type TokenCounter } from '../model/index.js';

/** What the server answers one accepted request with. */
export interface WindowLimitedReply {
  text?: string | undefined;
  toolCalls?: Array<{ id?: string | undefined; name: string; input: unknown }> | undefined;
}

/** One request the server received, as sent on the wire. */
export interface WindowLimitedRequest {
  protocol: 'anthropic' | 'openai';
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** Its prompt tokens as the server counts them (cl100k_base over every text of it). */
  tokens: number;
  /** Refused as longer than the window (a 400 with the provider's real error body). */
  rejected: boolean;
}

export interface WindowLimitedServer {
  /** Base URL for Anthropic models (the SDK appends `/v1/messages`). */
  readonly anthropicURL: string;
  /** Base URL for OpenAI-protocol models (the SDK appends `/chat/completions`). */
  readonly openaiURL: string;
  /** Every request, in arrival order, rejected ones included. */
  readonly requests: WindowLimitedRequest[];
  /** Requests to other paths than the chat APIs (`GET /v1/models`), in arrival order. */
  readonly asked: string[];
  /** The window it enforces, in prompt tokens; may be changed between requests. */
  window: number;
  close(): Promise<void>;
}

export interface WindowLimitedServerOptions {
  /** Prompt tokens above which a request is refused as a real provider refuses it. */
  window: number;
  /** The reply to an accepted request; `index` counts accepted requests from 0. */
  respond: (request: WindowLimitedRequest, index: number) => WindowLimitedReply;
  /**
   * The input tokens the reply reports (default: the server's own count). A provider's tokenizer
   * is not Legion's: a figure far above the local count is what a provider may well say. `null`:
   * no usage at all (OpenAI protocol: no usage chunk; Anthropic: zero input tokens), as some local
   * servers answer.
   */
  reportInputTokens?: ((request: WindowLimitedRequest) => number | null) | undefined;
  /**
   * What the server answers besides the chat APIs, by method and path (`GET /v1/models`, `POST
   * /api/show`): the model lists and descriptions of the servers it stands for (Ollama, vLLM).
   * Any other path is a 404.
   */
  routes?: Readonly<Record<string, (body: unknown) => { status: number; body: unknown }>> | undefined;
}

/**
 * A model server on 127.0.0.1 speaking the Anthropic Messages API and OpenAI Chat
 * Completions (streaming), that refuses any request whose prompt is over its window
 * the way the real providers do: Anthropic's 400 `invalid_request_error` "prompt is
 * too long: N tokens > M maximum", OpenAI's 400 `context_length_exceeded`. Tests drive
 * it through the official SDKs to prove that Legion never sends what cannot fit, and
 * recovers when the window it was told is wrong.
 */
export async function startWindowLimitedServer(options: WindowLimitedServerOptions): Promise<WindowLimitedServer> {
  const count = await loadTokenCounter();
  const requests: WindowLimitedRequest[] = [];
  /** Every request to a path other than the chat APIs, as `METHOD /path`. */
  const asked: string[] = [];
  let accepted = 0;
  const state = { window: options.window };
  const server = createServer((incoming, outgoing) => {
    readBody(incoming).then(
      (text) => {
        const protocol = incoming.url?.endsWith('/chat/completions')
          ? 'openai'
          : incoming.url?.endsWith('/v1/messages')
            ? 'anthropic'
            : undefined;
        const route = `${incoming.method ?? 'GET'} ${incoming.url ?? ''}`;
        if (!protocol) asked.push(route);
        const answer = protocol ? undefined : options.routes?.[route];
        if (answer) {
          const { status, body } = answer(text === '' ? undefined : JSON.parse(text));
          return sendJson(outgoing, status, body);
        }
        if (!protocol) return sendJson(outgoing, 404, { error: { type: 'not_found_error', message: `no route ${incoming.url ?? ''}` } });
        const body = JSON.parse(text) as Record<string, unknown>;
        const tokens = promptTokens(body, count);
        const rejected = tokens > state.window;
        const request: WindowLimitedRequest = { protocol, body, tokens, rejected };
        requests.push(request);
        if (rejected) return sendTooLong(outgoing, protocol, tokens, state.window);
        const reply = options.respond(request, accepted++);
        const reported = options.reportInputTokens ? options.reportInputTokens(request) : tokens;
        if (protocol === 'anthropic') streamAnthropic(outgoing, String(body['model']), reported ?? 0, reply);
        else streamOpenAI(outgoing, String(body['model']), reported, reply);
      },
      (error: unknown) => sendJson(outgoing, 400, { error: { message: String(error) } }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    anthropicURL: url,
    openaiURL: `${url}/v1`,
    requests,
    asked,
    get window() {
      return state.window;
    },
    set window(value: number) {
      state.window = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    incoming.on('error', reject);
  });
}

/** Every text the model would read: system, messages (text, tool calls, tool results) and tool definitions. */
function promptTokens(body: Record<string, unknown>, count: TokenCounter): number {
  let total = 0;
  const visit = (value: unknown): void => {
    if (typeof value === 'string') total += count(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const key of ['text', 'content', 'system', 'arguments', 'name']) if (key in record) visit(record[key]);
      if ('input' in record) total += count(JSON.stringify(record['input']));
      if ('function' in record) visit(record['function']);
      if ('tool_calls' in record) visit(record['tool_calls']);
    }
  };
  visit(body['system']);
  visit(body['messages']);
  for (const tool of (body['tools'] as unknown[] | undefined) ?? []) total += count(JSON.stringify(tool));
  return total;
}

function sendJson(outgoing: ServerResponse, status: number, body: unknown): void {
  outgoing.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomUUID().slice(0, 12)}` });
  outgoing.end(JSON.stringify(body));
}

/** The providers' real bodies for a prompt over the window. */
function sendTooLong(outgoing: ServerResponse, protocol: 'anthropic' | 'openai', tokens: number, window: number): void {
  if (protocol === 'anthropic') {
    sendJson(outgoing, 400, {
      type: 'error',
      error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${window} maximum` },
    });
    return;
  }
  sendJson(outgoing, 400, {
    error: {
      message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  });
}

function streamAnthropic(outgoing: ServerResponse, model: string, inputTokens: number, reply: WindowLimitedReply): void {
  outgoing.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (type: string, data: Record<string, unknown>): void => {
    outgoing.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  event('message_start', {
    message: {
      id: `msg_${randomUUID().slice(0, 12)}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 1 },
    },
  });
  let index = 0;
  if (reply.text) {
    event('content_block_start', { index, content_block: { type: 'text', text: '' } });
    event('content_block_delta', { index, delta: { type: 'text_delta', text: reply.text } });
    event('content_block_stop', { index });
    index++;
  }
  for (const call of reply.toolCalls ?? []) {
    event('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: call.id ?? `toolu_${randomUUID().slice(0, 12)}`, name: call.name, input: {} },
    });
    event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) } });
    event('content_block_stop', { index });
    index++;
  }
  const outputTokens = Math.max(1, Math.ceil(((reply.text ?? '').length + JSON.stringify(reply.toolCalls ?? []).length) / 4));
  event('message_delta', {
    delta: { stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
  event('message_stop', {});
  outgoing.end();
}

function streamOpenAI(outgoing: ServerResponse, model: string, inputTokens: number | null, reply: WindowLimitedReply): void {
  outgoing.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const id = `chatcmpl-${randomUUID().slice(0, 12)}`;
  const chunk = (delta: Record<string, unknown>, finish: string | null): void => {
    outgoing.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
    );
  };
  chunk({ role: 'assistant', content: reply.text ?? '' }, null);
  (reply.toolCalls ?? []).forEach((call, index) => {
    chunk(
      {
        tool_calls: [
          {
            index,
            id: call.id ?? `call_${randomUUID().slice(0, 12)}`,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.input) },
          },
        ],
      },
      null,
    );
  });
  chunk({}, reply.toolCalls?.length ? 'tool_calls' : 'stop');
  const outputTokens = Math.max(1, Math.ceil(((reply.text ?? '').length + JSON.stringify(reply.toolCalls ?? []).length) / 4));
  if (inputTokens !== null)
    outgoing.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices: [], usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens } })}\n\n`,
    );
  outgoing.write('data: [DONE]\n\n');
  outgoing.end();
}
