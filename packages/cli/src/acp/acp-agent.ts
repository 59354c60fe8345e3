import { realpathSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import {
  agent,
  PROTOCOL_VERSION,
  RequestError,
  type AgentConnection,
  type ClientCapabilities,
  type InitializeResponse,
  type SessionInfo,
  type Stream,
} from '@agentclientprotocol/sdk';
import { errorMessage, LegionError, SessionDriver, SessionNotFoundError, type Legion } from '@legion-collective/core';
import { AcpSession } from './acp-session.js';
import { acpEditorFiles } from './editor-files.js';
import { ACP_MEDIUM, acpSurface, type RequestOrigin } from './acp-surface.js';
import { historyUpdates } from './history-replay.js';
import { promptText } from './prompt-text.js';
import { inert, inertLine, stderr } from '../render/terminal-text.js';

export interface AcpAgentOptions {
  /** Aborted to stop serving (SIGTERM, Ctrl-C): the connection closes and running turns are cancelled and unwound. */
  stop?: AbortSignal | undefined;
  /** The user participant the editor speaks as (default: the collective's default user). */
  as?: string | undefined;
  version: string;
}

/**
 * Legion as an ACP agent on one connection (an editor that started `legion acp`): each ACP session
 * is a Legion session, which outlives this process (list, load and resume it after a restart).
 * Everything a prompt does goes through core's `SessionDriver`; this file only translates.
 * Resolves when the editor closes the connection.
 */
export async function serveAcp(legion: Legion, stream: Stream, options: AcpAgentOptions): Promise<void> {
  const root = legion.paths.root;
  const sessions = new Map<string, AcpSession>();
  const origins = new Map<string, RequestOrigin>();
  const you = options.as ?? legion.collective.defaultUser()?.id;
  if (you === undefined) throw new RequestError(-32603, 'The collective has no user participant to talk as: legion init adds "user".');

  const open = async (choice: { session: string } | { newSession: true }, cwd: string): Promise<AcpSession> => {
    insideWorkspace(root, cwd);
    let driver: SessionDriver | undefined;
    // The ACP session is the Legion session: its id is known once the driver has opened it (before any turn asks the editor).
    const editorFiles = acpEditorFiles(connection.client, () => driver?.session.id ?? '', clientCapabilities);
    try {
      driver = await SessionDriver.open(legion, { session: choice, as: you, medium: ACP_MEDIUM, editorFiles });
    } catch (error) {
      if (error instanceof SessionNotFoundError || (error as { code?: unknown }).code === 'session_not_found')
        throw new RequestError(
          -32002,
          `No Legion session ${'session' in choice ? choice.session : ''} in ${root}: session/list shows them.`,
          {
            sessionId: 'session' in choice ? choice.session : undefined,
          },
        );
      throw error;
    }
    const session = new AcpSession(driver, connection.client, legion);
    const replaced = sessions.get(session.id);
    replaced?.cancel();
    // The session's file tools use this editor's files now, not those of an earlier load of it.
    replaced?.driver.close();
    sessions.set(session.id, session);
    return session;
  };
  const known = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session)
      throw new RequestError(-32002, `Session ${sessionId} is not open on this connection: load or resume it first.`, { sessionId });
    return session;
  };

  /** What the editor offers (its files, its terminal), said in `initialize`. */
  let clientCapabilities: ClientCapabilities | undefined;
  const app = agent({ name: 'legion' })
    .onRequest('initialize', ({ params }): InitializeResponse => {
      clientCapabilities = params.clientCapabilities;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { embeddedContext: true },
          sessionCapabilities: { list: {}, resume: {}, close: {} },
        },
        agentInfo: { name: 'legion', title: 'Legion', version: options.version },
        authMethods: [],
      };
    })
    .onRequest('session/new', async ({ params }) => {
      const session = await translated(() => open({ newSession: true }, params.cwd));
      // The agents' MCP servers are the workspace's (.legion/config.json): said, so the editor's user is not left wondering.
      if (params.mcpServers.length > 0)
        stderr.write(
          `legion acp: the editor's MCP servers (${params.mcpServers.map((server) => inertLine(server.name)).join(', ')}) are not used; Legion's agents use the workspace's "mcpServers" (.legion/config.json)\n`,
        );
      return { sessionId: session.id };
    })
    .onRequest('session/load', async ({ params }) => {
      const session = await translated(() => open({ session: params.sessionId }, params.cwd));
      const history = await session.driver.session.conversation({ initiator: you, responder: legion.entryAgentId() }).history();
      for (const update of historyUpdates(history, { entryAgent: legion.entryAgentId(), root })) void session.send(update);
      // The replay is whole before the answer: the editor shows the thread, then takes prompts.
      await session.flushed();
      return {};
    })
    .onRequest('session/resume', async ({ params }) => {
      await translated(() => open({ session: params.sessionId }, params.cwd));
      return {};
    })
    .onRequest('session/list', async ({ params }) => {
      if (params.cwd !== undefined && params.cwd !== null && !isInside(root, params.cwd)) return { sessions: [] };
      const listed = await legion.sessions.list();
      const infos: SessionInfo[] = [...listed]
        .sort((a, b) => (a.lastActiveAt < b.lastActiveAt ? 1 : a.lastActiveAt > b.lastActiveAt ? -1 : 0))
        // A session is the workspace's, whatever folder in it the editor works in: listed under the folder asked about.
        .map((meta) => ({ sessionId: meta.id, cwd: params.cwd ?? root, title: meta.title ?? null, updatedAt: meta.lastActiveAt }));
      return { sessions: infos };
    })
    .onRequest('session/close', ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
      sessions.get(params.sessionId)?.driver.close();
      sessions.delete(params.sessionId);
      return {};
    })
    .onRequest('session/prompt', async ({ params }) => {
      const session = known(params.sessionId);
      const text = promptText(params.prompt);
      if (text.length === 0) throw RequestError.invalidParams(undefined, 'The prompt is empty: say what you want the agents to do.');
      return { stopReason: await translated(() => session.prompt(text)) };
    })
    .onNotification('session/cancel', ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  const connection: AgentConnection = app.connect(stream);
  const onStop = (): void => connection.close();
  options.stop?.addEventListener('abort', onStop, { once: true });
  const detach = legion.attachUser(
    acpSurface(connection.client, you, (requestId) => {
      const origin = origins.get(requestId);
      const session = origin ? sessions.get(origin.sessionId) : undefined;
      return origin && session ? { session, origin } : undefined;
    }),
  );
  const unsubscribe = legion.events.onAny((event) => {
    // Recorded before any surface is asked: the surface finds the tool call by the request's id (its view names neither).
    if (event.type === 'approval:requested') origins.set(event.requestId, { sessionId: event.sessionId, toolUseId: event.toolUseId });
    else if (event.type === 'approval:decided') origins.delete(event.requestId);
    if ('sessionId' in event && event.sessionId !== undefined) sessions.get(event.sessionId)?.handle(event);
  });
  try {
    await connection.closed;
  } catch (error) {
    stderr.write(`legion acp: the connection ended: ${inert(errorMessage(error))}\n`);
  } finally {
    options.stop?.removeEventListener('abort', onStop);
    // Each running turn is stopped and waited for, so its cancellation is written before the workspace closes.
    for (const session of sessions.values()) session.cancel();
    await Promise.all([...sessions.values()].map((session) => session.settled()));
    for (const session of sessions.values()) session.driver.close();
    unsubscribe();
    detach();
  }
}

/**
 * Legion's own refusals (a busy conversation, a session that cannot be opened) as JSON-RPC errors
 * with their words and code: the editor shows them, rather than a bare "Internal error".
 */
async function translated<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RequestError) throw error;
    if (error instanceof LegionError) throw new RequestError(-32603, error.message, { code: error.code });
    throw error;
  }
}

/** A session's `cwd` is the workspace or a folder in it: Legion's agents work in the workspace, and nowhere else. */
function insideWorkspace(root: string, cwd: string): void {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path; "${cwd}" is not.`);
  if (!isInside(root, cwd))
    throw RequestError.invalidParams(
      { cwd, workspace: root },
      `${cwd} is not inside the Legion workspace ${root} that this legion acp serves. Start legion acp with -w <workspace> for that folder (legion init makes one).`,
    );
}

function isInside(root: string, path: string): boolean {
  const real = (value: string): string => {
    try {
      return realpathSync(value);
    } catch {
      return value;
    }
  };
  const inside = relative(real(root), real(path));
  return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
}
