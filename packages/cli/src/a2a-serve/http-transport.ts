import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Participant } from '@legion-collective/core';
import { A2A_VERSION_HEADER, AGENT_CARD_PATH, AgentCard, formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';
import { DefaultRequestHandler, JsonRpcTransportHandler, validateVersion } from '@a2a-js/sdk/server';
import { allowedHosts } from '@legion-collective/server/local-origin';
import { serveLocally } from '@legion-collective/server/node-serve';
import { guardRequest, refusal, type GuardedServer } from '../mcp-serve/http-guard.js';
import { agentCardOf, agentPath } from './agent-card.js';
import { LegionExecutor } from './legion-executor.js';
import type { A2aServeContext } from './serve-context.js';
import { FileTaskStore } from './task-store.js';

/** The largest JSON-RPC request taken (as `legion mcp serve` takes): a message is text, not files. */
const MAX_REQUEST_BYTES = 4 * 1_048_576;

export const A2A_SERVER: GuardedServer = { kind: 'A2A server', command: 'legion a2a serve', tokenEnv: 'LEGION_A2A_TOKEN' };

export interface A2aServing {
  /** The server's base URL; the entry agent's card is at `<url>/.well-known/agent-card.json`. */
  url: string;
  /** Each exposed agent's base URL (its card under it), in order. */
  agents: Array<{ id: string; url: string }>;
  close(): Promise<void>;
}

/** One exposed agent: its card, and the SDK's request handler over its executor and task store. */
interface Published {
  card: AgentCard;
  executor: LegionExecutor;
  rpc: JsonRpcTransportHandler;
}

/**
 * The exposed agents over A2A's JSON-RPC binding, on the HTTP stack `legion serve` and `legion mcp
 * serve` use (the SDK's transport-neutral `JsonRpcTransportHandler`, so no second HTTP framework):
 * each at `/agents/<id>` with its card at `/agents/<id>/.well-known/agent-card.json`; the first
 * (the entry agent by default) also at the root's well-known card. Every request passes the Host
 * and Origin checks; all but the cards need the bearer token.
 */
export async function serveA2a(
  context: A2aServeContext,
  options: { host: string; port: number; token: string; agents: readonly Participant[]; version: string; warn: (line: string) => void },
): Promise<A2aServing> {
  let hosts = new Set<string>();
  const published = new Map<string, Published>();
  let entry: Published | undefined;

  const handle = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    const cardOf = path === `/${AGENT_CARD_PATH}` ? entry : publishedAt(path, `/${AGENT_CARD_PATH}`);
    // The card is public, as A2A discovery expects (the SDK's card resolver sends no credentials): it names the agents and the token they need, nothing of the work.
    const refused = guardRequest(request, { token: cardOf ? undefined : options.token, hosts, server: A2A_SERVER });
    if (refused) return refused;
    if (cardOf) {
      if (request.method !== 'GET') return refusal(405, 'usage', `${request.method} ${path}: the agent card is read with GET.`);
      return Response.json(AgentCard.toJSON(cardOf.card), { headers: { 'cache-control': 'no-cache' } });
    }
    const agent = publishedAt(path, '');
    if (!agent) {
      const where = [...published.keys()].map((id) => agentPath(id)).join(', ');
      return refusal(
        404,
        'not_found',
        `Nothing at ${path}: the A2A agents are at ${where} (each card under /.well-known/agent-card.json).`,
      );
    }
    if (request.method !== 'POST') return refusal(405, 'usage', `${request.method} ${path}: A2A JSON-RPC requests are POSTed.`);
    const body = await boundedText(request);
    if (body === undefined)
      return refusal(413, 'payload_too_large', `The request is over the limit of ${MAX_REQUEST_BYTES / 1_048_576} MiB: send less.`);
    return answerRpc(agent, request, body);
  };

  const publishedAt = (path: string, suffix: string): Published | undefined => {
    if (!path.startsWith('/agents/') || !path.endsWith(suffix)) return undefined;
    return published.get(decodeURIComponent(path.slice('/agents/'.length, path.length - suffix.length)));
  };

  const listening = await serveLocally({ fetch: handle, port: options.port, hostname: options.host });
  const port = (listening.address() as AddressInfo).port;
  hosts = allowedHosts(options.host, port);
  const urlHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  const baseUrl = `http://${urlHost}:${port}`;
  for (const agent of options.agents) {
    const card = agentCardOf(agent, { baseUrl, version: options.version });
    const store = await FileTaskStore.open(
      join(context.legion.paths.runDir, 'a2a', agent.id, 'tasks'),
      context.callContext(),
      options.warn,
    );
    const executor = new LegionExecutor(context, agent, store);
    const handler = new DefaultRequestHandler(card, store, executor);
    const entryOfAgent: Published = { card, executor, rpc: new JsonRpcTransportHandler(handler) };
    published.set(agent.id, entryOfAgent);
    entry ??= entryOfAgent;
  }

  return {
    url: baseUrl,
    agents: options.agents.map((agent) => ({ id: agent.id, url: `${baseUrl}${agentPath(agent.id)}` })),
    close: async () => {
      await Promise.all([...published.values()].map((agent) => agent.executor.shutdown()));
      await new Promise<void>((resolve) => {
        listening.close(() => resolve());
        if ('closeAllConnections' in listening) listening.closeAllConnections();
      });
    },
  };

  /** One JSON-RPC request through the SDK: a JSON answer, or server-sent events for a stream. */
  async function answerRpc(agent: Published, request: Request, body: string): Promise<Response> {
    const call = context.callContext(request.headers.get(A2A_VERSION_HEADER) ?? undefined);
    try {
      validateVersion(call.requestedVersion, agent.card, 'JSONRPC');
    } catch (error) {
      return Response.json({ jsonrpc: '2.0', id: null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
    }
    const answered = await agent.rpc.handle(body, call);
    if (!(Symbol.asyncIterator in answered)) return Response.json(answered);
    const encoder = new TextEncoder();
    // The SDK writes a streamed task's events to the task store as its stream is read: it is read to
    // the end here, whoever listens, so a client that goes away (to come back with tasks/get) misses
    // nothing of its task, and a slow one holds nothing up.
    let listening = true;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        void (async () => {
          try {
            for await (const event of answered) if (listening) controller.enqueue(encoder.encode(formatSSEEvent(event)));
          } catch (error) {
            if (listening)
              controller.enqueue(
                encoder.encode(formatSSEErrorEvent({ jsonrpc: '2.0', id: null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) })),
              );
          } finally {
            if (listening) controller.close();
          }
        })();
      },
      cancel() {
        listening = false;
      },
    });
    return new Response(stream, { headers: SSE_HEADERS });
  }
}

/** The request's body as text, or undefined past the limit (by Content-Length unread, else as it streams in). */
async function boundedText(request: Request): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_REQUEST_BYTES) return undefined;
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_REQUEST_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
