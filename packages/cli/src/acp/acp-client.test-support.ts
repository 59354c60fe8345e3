import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import {
  client,
  ndJsonStream,
  PROTOCOL_VERSION,
  type ClientConnection,
  RequestError,
  type ClientCapabilities,
  type InitializeResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { LEGION } from '../legion-process.test-support.js';

/** A `legion acp` child and the SDK's client side connected to it over its stdio, as an editor runs it. */
export interface AcpEditor {
  readonly child: ChildProcessWithoutNullStreams;
  readonly connection: ClientConnection;
  /** Every `session/update` received, in order. */
  readonly updates: SessionNotification[];
  /** Every permission request received, in order. */
  readonly permissions: RequestPermissionRequest[];
  /** What the child wrote to standard error. */
  stderr(): string;
  /** What the child wrote to standard output, as the editor read it. */
  stdout(): string;
  /** Its exit status, once it exited. */
  readonly exited: Promise<number | null>;
  /** Closes the connection and waits for the child to exit; resolves with its exit status. */
  close(): Promise<number | null>;
}

/**
 * An editor's open files, for a client that offers `fs`: `buffers` maps an absolute path to the
 * text of its (unsaved) buffer. A read of a path with no buffer is answered as Zed answers one it
 * cannot serve, with a JSON-RPC error; a write replaces the buffer (the disk is left alone, as an
 * editor that has not saved yet leaves it). Every request is recorded.
 */
export interface EditorBuffers {
  readonly buffers: Map<string, string>;
  readonly reads: string[];
  readonly writes: Array<{ path: string; content: string }>;
}

/**
 * Spawns `legion acp` in `cwd` and connects the SDK's client to it. `answer` decides each
 * permission request (the editor's user clicking an option; `signal` aborts when the agent
 * withdraws the request); by default the request is cancelled.
 */
export function startEditor(
  cwd: string,
  env: NodeJS.ProcessEnv,
  answer: (
    request: RequestPermissionRequest,
    signal: AbortSignal,
  ) => RequestPermissionResponse | Promise<RequestPermissionResponse> = () => ({
    outcome: { outcome: 'cancelled' },
  }),
  files?: EditorBuffers,
): AcpEditor {
  const child = spawn(process.execPath, [LEGION, 'acp'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const app = client({ name: 'legion-acp-test' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', async ({ params, signal }) => {
      permissions.push(params);
      return answer(params, signal);
    })
    .onRequest('fs/read_text_file', ({ params }) => {
      if (!files) throw RequestError.methodNotFound('fs/read_text_file');
      files.reads.push(params.path);
      const content = files.buffers.get(params.path);
      if (content === undefined) throw RequestError.resourceNotFound(params.path);
      return { content };
    })
    .onRequest('fs/write_text_file', ({ params }) => {
      if (!files) throw RequestError.methodNotFound('fs/write_text_file');
      files.writes.push({ path: params.path, content: params.content });
      files.buffers.set(params.path, params.content);
      return {};
    });
  const connection = app.connect(
    ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>),
  );
  return {
    child,
    connection,
    updates,
    permissions,
    stderr: () => stderr,
    stdout: () => stdout,
    exited,
    close: async () => {
      connection.close();
      child.stdin.end();
      return exited;
    },
  };
}

/** `initialize` as an editor sends it: by default without file system or terminal capabilities. */
export function initialize(editor: AcpEditor, clientCapabilities: ClientCapabilities = {}): Promise<InitializeResponse> {
  return editor.connection.agent.request('initialize', {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities,
    clientInfo: { name: 'legion-acp-test', version: '1.0.0' },
  });
}

/** The text of the `agent_message_chunk`s received for a session, joined. */
export function agentText(updates: readonly SessionNotification[], sessionId: string): string {
  let text = '';
  for (const { sessionId: id, update } of updates)
    if (id === sessionId && update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') text += update.content.text;
  return text;
}
