import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { LLMock } from '@copilotkit/aimock';
import type { Message } from '../../../kernel/message.js';
import { startWireRecorder, type WireRecorder } from '../../../testing/wire-recorder.js';
import type { StreamPart } from '../llm-provider.js';

/** Keys the providers read from the environment we hand them (never the real process environment). */
export const TEST_ENV: NodeJS.ProcessEnv = { ANTHROPIC_API_KEY: 'test-anthropic-key', OPENAI_API_KEY: 'test-openai-key' };

/**
 * TEST_ENV with the providers' endpoints set to a local server, so that the
 * keys may go there: a key is sent only to its provider's endpoint.
 */
export function keyEnv(anthropicURL: string, openaiURL = `${anthropicURL}/v1`): NodeJS.ProcessEnv {
  return { ...TEST_ENV, ANTHROPIC_BASE_URL: anthropicURL, OPENAI_BASE_URL: openaiURL };
}

/**
 * aimock (speaking the Anthropic and OpenAI wire protocols) behind a wire
 * recorder: the SDKs talk to `recorder.url`, the recorder keeps the exact
 * bodies they sent and forwards them to aimock.
 */
export interface LlmServer {
  mock: LLMock;
  recorder: WireRecorder;
  /** Base URL for Anthropic models (the SDK appends `/v1/messages`). */
  anthropicURL: string;
  /** Base URL for OpenAI-protocol models (the SDK appends `/chat/completions`). */
  openaiURL: string;
  /** Request bodies sent to the Messages API, in order. */
  anthropicBodies(): Array<Record<string, unknown>>;
  /** Request bodies sent to Chat Completions, in order. */
  openaiBodies(): Array<Record<string, unknown>>;
  /** Forgets fixtures, match counts and recorded requests between tests. */
  reset(): void;
  close(): Promise<void>;
}

export async function startLlmServer(): Promise<LlmServer> {
  const mock = new LLMock({ port: 0, host: '127.0.0.1' });
  await mock.start();
  const recorder = await startWireRecorder(mock.url);
  return {
    mock,
    recorder,
    anthropicURL: recorder.url,
    openaiURL: `${recorder.url}/v1`,
    anthropicBodies: () => recorder.bodies('/v1/messages') as Array<Record<string, unknown>>,
    openaiBodies: () => recorder.bodies('/v1/chat/completions') as Array<Record<string, unknown>>,
    reset: () => {
      mock.clearFixtures();
      mock.resetMatchCounts();
      mock.clearRequests();
      recorder.requests.length = 0;
    },
    close: async () => {
      await recorder.close();
      await mock.stop();
    },
  };
}

/** A URL where nothing listens: a port we bound and released. */
export async function closedPortURL(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

let nextId = 0;

/** A canonical message as the conversation log holds it. */
export function message(role: Message['role'], content: Message['content']): Message {
  nextId++;
  return { id: `m${nextId}`, at: '2025-01-01T00:00:00.000Z', role, content };
}

export function userText(text: string): Message {
  return message('user', [{ type: 'text', text }]);
}

export async function collect(parts: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const result: StreamPart[] = [];
  for await (const part of parts) result.push(part);
  return result;
}

/** Runs `action` and returns what it threw (failing if it did not throw). */
export async function caught(action: () => unknown): Promise<Error & { code?: string }> {
  try {
    await action();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected an error, but none was thrown');
}
