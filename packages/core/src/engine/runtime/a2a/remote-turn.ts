import { randomUUID } from 'node:crypto';
import { Role, type SendMessageRequest } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { A2aParticipant } from '../../../team/index.js';
import { errorMessage, LegionError, textOf, type Message, type RemoteTask } from '../../../kernel/index.js';
import type { RuntimeOutcome, TurnContext } from '../../../session/index.js';
import { waitingParticipants } from '../../../session/index.js';
import { cut } from './agent-card.js';
import { isSettled, isTerminal, RemoteReply, WAITING } from './remote-reply.js';

/** How long a cancelled turn waits for the remote to take its cancel: the turn settles either way. */
const CANCEL_WAIT_MS = 5_000;

export interface RemoteTurnOptions {
  client: Client;
  /** The remote agent's name, from its card (the participant's own name is what Legion shows). */
  cardName: string;
  /** The most text the answer may hold (limits.maxReplyBytes): past it the remote is stopped. */
  maxReplyBytes: number;
}

/**
 * One message to a remote agent: sent as an A2A message (streamed when its card says so), in the context
 * of the conversation's earlier ones, continuing the task that waits for input if the last reply was a
 * question. Its answer is appended with its task, so the next message (in this process or after a restart)
 * knows where it stands.
 */
export async function runRemoteTurn(turn: TurnContext, options: RemoteTurnOptions): Promise<RuntimeOutcome> {
  const participant = turn.participant as A2aParticipant;
  const previous = lastRemoteTask(await turn.conversation.history());
  const continuing = previous && WAITING.has(previous.state) ? previous.taskId : undefined;
  const request: SendMessageRequest = {
    tenant: '',
    message: {
      messageId: randomUUID(),
      contextId: previous?.contextId ?? '',
      taskId: continuing ?? '',
      role: Role.ROLE_USER,
      parts: [
        {
          content: { $case: 'text', value: turn.message ? textOf(turn.message) : '' },
          metadata: undefined,
          filename: '',
          mediaType: 'text/plain',
        },
      ],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
  const reply = new RemoteReply();
  const stop = new AbortController();
  let graceTimer: NodeJS.Timeout | undefined;
  // The task's id comes with the first event: cancelled before it came, the stream is kept a moment for it,
  // so that the remote can be told to cancel (A2A gives no other way to learn it).
  const onAbort = () => {
    if (reply.taskId) stop.abort(turn.signal.reason);
    else graceTimer = setTimeout(() => stop.abort(turn.signal.reason), CANCEL_WAIT_MS);
  };
  if (turn.signal.aborted) onAbort();
  else turn.signal.addEventListener('abort', onAbort, { once: true });
  let overLimit = false;
  try {
    for await (const event of options.client.sendMessageStream(request, { signal: stop.signal })) {
      const added = reply.take(event);
      if (turn.signal.aborted) {
        stop.abort(turn.signal.reason);
        break;
      }
      if (added) turn.events.emit('text:delta', Object.assign({}, turn.conversation.ref, { participantId: participant.id, text: added }));
      if (reply.bytes > options.maxReplyBytes) {
        overLimit = true;
        // Leaving the loop alone would wait for the stream to end, which a remote that will not stop never does.
        stop.abort(new LegionError('remote_too_large', 'over limits.maxReplyBytes'));
        break;
      }
      // Not on input-required: a continued task's first event is the task as it waited, question and all.
      // The server ends the stream there itself; a terminal state is the end whatever the server does next.
      if (isTerminal(reply.state)) break;
    }
  } catch (error) {
    if (!turn.signal.aborted && !overLimit) {
      await cancelRemote(options.client, reply);
      if (error instanceof LegionError) return { status: 'error', code: error.code, error: error.message };
      return {
        status: 'error',
        code: 'remote_unreachable',
        error: `${participant.name} (${participant.url}) failed: ${cut(errorMessage(error))}`,
      };
    }
  } finally {
    clearTimeout(graceTimer);
    turn.signal.removeEventListener('abort', onAbort);
  }
  if (turn.signal.aborted) {
    await cancelRemote(options.client, reply);
    return {
      status: 'error',
      code: 'cancelled',
      error: `Cancelled${reply.taskId ? `; ${participant.name}'s task was cancelled too` : ''}.`,
    };
  }
  if (overLimit) await cancelRemote(options.client, reply);
  await recordUsage(turn, participant, options.cardName, reply);
  const state = overLimit ? 'canceled' : (reply.state ?? 'completed');
  if (!overLimit && !isSettled(state)) {
    return { status: 'error', code: 'remote_task_failed', error: `${participant.name}'s task stopped answering while still ${state}.` };
  }
  if (!overLimit && state !== 'completed' && !WAITING.has(state)) {
    const said = reply.lastSaid();
    return {
      status: 'error',
      code: 'remote_task_failed',
      error: `${participant.name}'s task was ${state === 'canceled' ? 'cancelled on its side' : state}${said ? `: ${cut(said, 2000)}` : '.'}`,
    };
  }
  const remoteTask: RemoteTask = {
    state,
    ...(reply.taskId ? { taskId: reply.taskId } : {}),
    ...(reply.contextId ? { contextId: reply.contextId } : {}),
  };
  const answer = overLimit ? cutBytes(reply.text(), options.maxReplyBytes) : WAITING.has(state) ? reply.lastSaid() : reply.text();
  const message = await turn.conversation.append(
    { role: 'assistant', content: [{ type: 'text', text: answer }], remoteTask, ...(reply.usage ? { usage: reply.usage } : {}) },
    participant.id,
  );
  if (overLimit) {
    return {
      status: 'success',
      reply: `${answer}\n\n[${participant.name} was stopped here: its answer passed limits.maxReplyBytes (${options.maxReplyBytes} bytes).]`,
      message,
      truncated: true,
    };
  }
  if (WAITING.has(state)) return { status: 'success', reply: questionFor(participant, turn, answer, state), message };
  return { status: 'success', reply: answer, message };
}

/** The last remote reply's task and context: the next message continues that context (and that task, if it waits). */
function lastRemoteTask(history: readonly Message[]): RemoteTask | undefined {
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index]!;
    if (message.role !== 'assistant') continue;
    if (message.remoteTask) return message.remoteTask;
    // A turn that ended without a reply (failed, cancelled) leaves no task to continue, but the context stays.
    if (message.ending) {
      const earlier = lastRemoteTask(history.slice(0, index));
      return earlier?.contextId ? { contextId: earlier.contextId, state: 'completed' } : undefined;
    }
  }
  return undefined;
}

/** The remote's question as the asker reads it: whose it is, and that answering means writing to it again. */
function questionFor(participant: A2aParticipant, turn: TurnContext, question: string, state: string): string {
  const thread = turn.conversation.ref.name ? ` with conversation "${turn.conversation.ref.name}"` : '';
  const waiting = waitingParticipants(turn.frames);
  const pass = waiting.length > 1 ? ' If you cannot answer it, ask whoever is waiting on you (the user, ultimately), then answer it.' : '';
  const what = state === 'auth-required' ? 'needs authorization to go on' : 'has a question before it can go on';
  return `${participant.name} ${what}:\n\n${question || '(it said nothing more)'}\n\n[This is a question from ${participant.name}, not its answer: its task waits. To answer, communicate with "${participant.id}"${thread} again; that message continues the same task.${pass}]`;
}

/** Asks the remote to cancel the task this turn started or continued, unless it has ended; the turn settles either way. */
async function cancelRemote(client: Client, reply: RemoteReply): Promise<void> {
  if (!reply.taskId || (isSettled(reply.state) && !WAITING.has(reply.state!))) return;
  try {
    await client.cancelTask({ tenant: '', id: reply.taskId, metadata: undefined }, { signal: AbortSignal.timeout(CANCEL_WAIT_MS) });
  } catch {
    // Already ended, unreachable, or it refuses: Legion's turn is cancelled all the same.
  }
}

/** The remote's reported usage, in the session's ledger (no price: Legion does not know what the remote pays). */
async function recordUsage(turn: TurnContext, participant: A2aParticipant, cardName: string, reply: RemoteReply): Promise<void> {
  if (!reply.usage) return;
  const chain = waitingParticipants(turn.frames);
  await turn.session.recordUsage({
    version: 1,
    at: new Date().toISOString(),
    participantId: participant.id,
    conversationId: turn.conversation.ref.conversationId,
    chain,
    provider: 'a2a',
    model: cardName,
    usage: reply.usage,
    costUsd: null,
  });
  turn.events.emit(
    'usage:report',
    Object.assign({}, turn.conversation.ref, {
      participantId: participant.id,
      chain,
      usage: reply.usage,
      provider: 'a2a',
      model: cardName,
      costUsd: null,
    }),
  );
}

function cutBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text);
  return bytes.byteLength <= maxBytes
    ? text
    : bytes
        .subarray(0, maxBytes)
        .toString('utf8')
        .replace(/\uFFFD$/, '');
}
