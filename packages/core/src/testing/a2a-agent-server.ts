import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2A_PROTOCOL_VERSION, Role, TaskState, type AgentCard, type Message as A2aMessage, type Part } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  type AgentExecutor,
} from '@a2a-js/sdk/server';

export interface A2aAgentServer {
  /** The agent card's URL (`…/.well-known/agent-card.json`): what an `a2a` participant names. */
  readonly cardUrl: string;
  readonly origin: string;
  /** Every request's method, path and headers, in arrival order. */
  readonly requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}

/**
 * A remote agent on 127.0.0.1 built with `@a2a-js/sdk`'s own request handler (JSON-RPC over a real HTTP
 * server, streaming as SSE), answering with the executor a test gives it.
 */
export async function startA2aAgentServer(options: {
  executor: AgentExecutor;
  name?: string;
  description?: string;
  streaming?: boolean;
  skills?: Array<{ id: string; name: string; description: string }>;
}): Promise<A2aAgentServer> {
  const requests: A2aAgentServer['requests'] = [];
  let card: AgentCard | undefined;
  let handler: JsonRpcTransportHandler | undefined;
  const server = createServer((request, response) => {
    requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers });
    void serve(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    });
  });
  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === 'GET' && request.url === '/.well-known/agent-card.json') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(card));
      return;
    }
    if (request.method !== 'POST' || request.url !== '/a2a') {
      response.writeHead(404);
      response.end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const context = defaultServerCallContextBuilder({
      user: new UnauthenticatedUser(),
      headers: request.headers,
      requestedVersion: header(request, 'a2a-version'),
      extensions: undefined,
    });
    const result = await handler!.handle(Buffer.concat(chunks).toString('utf8'), context);
    if (Symbol.asyncIterator in result) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      for await (const event of result) response.write(`data: ${JSON.stringify(event)}\n\n`);
      response.end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(result));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  card = {
    name: options.name ?? 'Remote Painter',
    description: options.description ?? 'Paints what it is asked to.',
    supportedInterfaces: [{ url: `${origin}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    skills: (options.skills ?? [{ id: 'paint', name: 'Paint', description: 'Paints a picture.' }]).map((skill) => ({
      ...skill,
      tags: [],
      examples: [],
      inputModes: ['text'],
      outputModes: ['text'],
      securityRequirements: [],
    })),
    signatures: [],
  };
  handler = new JsonRpcTransportHandler(new DefaultRequestHandler(card, new InMemoryTaskStore(), options.executor));
  return {
    cardUrl: `${origin}/.well-known/agent-card.json`,
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A text part, as an executor publishes it. */
export function a2aText(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/** The remote agent's message with this text, in a task. */
export function a2aAgentMessage(text: string, taskId: string, contextId: string): A2aMessage {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [a2aText(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export { AgentEvent as A2aAgentEvent, TaskState as A2aTaskState };
