import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DelegationFrame } from '../../../store/records/delegation-frame.js';
import { EventBus } from '../../../kernel/events/EventBus.js';
import type { ToolSession } from '../../../session/turn.js';
import { FileSessionBackend } from '../../../store/file/FileSessionBackend.js';
import { SessionAgentState } from '../../../store/SessionAgentState.js';
import { SessionArtifacts } from '../../../store/SessionArtifacts.js';
import type { Tool, ToolContext, ToolResult } from '../../tool.js';

/** A workspace in a temp folder (with `.legion/`) and a sibling folder outside it, removed by `cleanup()`. */
export function tempWorkspace(): { root: string; outside: string; cleanup: () => void } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'legion-builtin-')));
  const root = join(base, 'workspace');
  const outside = join(base, 'outside');
  mkdirSync(join(root, '.legion'), { recursive: true });
  mkdirSync(outside);
  return { root, outside, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/**
 * The context the executor would hand a tool. File and shell tools never touch
 * the session, and planning and scratchbook tools keep their state through
 * its `agentState` (the workspace's file backend here), so a session with
 * just those stands in unless a real one is given.
 */
export function toolContext(options: {
  root: string | undefined;
  callerId?: string;
  sessionId?: string;
  session?: ToolSession;
  waiting?: string[];
  signal?: AbortSignal;
  resultTokenBudget?: number;
}): ToolContext {
  const sessionId = options.sessionId ?? '20250101-000000-abcdef';
  const backend = options.root ? new FileSessionBackend({ root: options.root }) : undefined;
  const agentState = backend ? new SessionAgentState(backend.agentState, sessionId) : undefined;
  const artifacts = backend ? new SessionArtifacts(backend.artifacts, sessionId) : undefined;
  const session = options.session ?? ({ id: sessionId, agentState, artifacts } as ToolSession);
  const callerId = options.callerId ?? 'worker';
  const waiting = options.waiting ?? ['user'];
  // The first waits on the message it sent; each after it in a communicate call of the conversation it answers.
  const frames: DelegationFrame[] = waiting.map((participantId, index) =>
    index === 0
      ? { participantId, conversationId: `${participantId}__${waiting[1] ?? callerId}` }
      : { participantId, conversationId: `${waiting[index - 1]}__${participantId}`, toolUseId: `waiting-${index}` },
  );
  return {
    callerId,
    conversation: {
      sessionId: session.id,
      conversationId: `${waiting.at(-1) ?? 'user'}__${callerId}`,
      initiator: waiting.at(-1) ?? 'user',
      responder: callerId,
    },
    toolUseId: 'tool-use-1',
    frames,
    session,
    signal: options.signal ?? new AbortController().signal,
    events: new EventBus(),
    workspaceRoot: options.root,
    readable: () => true,
    ...(options.resultTokenBudget !== undefined ? { resultTokenBudget: options.resultTokenBudget } : {}),
  };
}

/** Runs a tool as the executor would: input parsed (defaults applied) by its schema first. */
export async function run(tool: Tool, input: unknown, context: ToolContext): Promise<ToolResult> {
  const parsed = tool.inputSchema.safeParse(input);
  if (!parsed.success) throw new Error(`test input for ${tool.name} is invalid: ${parsed.error.message}`);
  return tool.execute(parsed.data, context);
}

/** The text of a success result; fails the test on an error result. */
export function successText(result: ToolResult): string {
  if (result.status !== 'success') throw new Error(`expected success, got ${JSON.stringify(result)}`);
  return typeof result.data === 'string' ? result.data : JSON.stringify(result.data);
}

/** The message of an error result; fails the test on any other result. */
export function errorText(result: ToolResult): string {
  if (result.status !== 'error') throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return result.error;
}

/** Whether a process still runs (a zombie waiting to be reaped counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!existsSync('/proc/self/stat')) return true;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false; // reaped between the two checks
  }
  // "pid (name) state ...": Z (zombie) and X (dead) have already exited.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/**
 * Whether a killed process is gone within a generous bound. A SIGKILL is
 * delivered asynchronously: the target may still be exiting when the sender
 * returns, so tests wait for the outcome rather than sample it once.
 */
export async function isGoneSoon(pid: number, boundMs = 5000): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}
