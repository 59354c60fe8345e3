import type { A2aParticipant, ResolvedConfig } from '../../../team/index.js';
import { errorMessage, LegionError } from '../../../kernel/index.js';
import type { ParticipantRuntime, RuntimeOutcome, TurnContext } from '../../../session/index.js';
import type { RemoteAccess } from './agent-card.js';

/**
 * What one response of a remote agent may hold, in bytes on the wire, as a multiple of the text it may
 * answer with (limits.maxReplyBytes): a response carries the task, its status and JSON around the text.
 */
const RESPONSE_BYTES_PER_REPLY_BYTE = 4;
/**
 * The same for a stream, whose every event repeats the ids and JSON (some 300 bytes) around a chunk of
 * text that may be one word: 16 × 1 MiB by default, some 50,000 events. The text itself is bounded on
 * its own (limits.maxReplyBytes); this bounds a stream of events that carry none.
 */
const STREAM_BYTES_PER_REPLY_BYTE = 16;

/** The access a remote agent is reached with, by the config as it is now. */
export function remoteAccess(config: ResolvedConfig, env: NodeJS.ProcessEnv): RemoteAccess {
  return {
    remoteAgents: config.remoteAgents,
    env,
    maxResponseBytes: RESPONSE_BYTES_PER_REPLY_BYTE * config.limits.maxReplyBytes,
    maxStreamBytes: STREAM_BYTES_PER_REPLY_BYTE * config.limits.maxReplyBytes,
    idleTimeoutMs: config.limits.toolTimeoutMs,
  };
}

/**
 * Answers for `a2a` participants: agents that live elsewhere, reached over A2A. The SDK and the turn's
 * code are loaded on the first message to one, so a collective without remote agents never loads them.
 */
export class A2aRuntime implements ParticipantRuntime {
  constructor(private readonly options: { config: () => ResolvedConfig; env: NodeJS.ProcessEnv }) {}

  async handleMessage(turn: TurnContext): Promise<RuntimeOutcome> {
    const participant = turn.participant as A2aParticipant;
    const config = this.options.config();
    const access = remoteAccess(config, this.options.env);
    const [{ connectRemoteAgent }, { runRemoteTurn }] = await Promise.all([import('./agent-card.js'), import('./remote-turn.js')]);
    let connection: Awaited<ReturnType<typeof connectRemoteAgent>>;
    try {
      // The card is read for every message: it says where and how to send (a remote may move), and it is small.
      connection = await connectRemoteAgent(participant.url, access, turn.signal);
    } catch (error) {
      if (turn.signal.aborted) return { status: 'error', code: 'cancelled', error: 'Cancelled before the remote agent was reached.' };
      if (error instanceof LegionError) return { status: 'error', code: error.code, error: `${participant.name}: ${error.message}` };
      return { status: 'error', code: 'remote_unreachable', error: `${participant.name}: ${errorMessage(error)}` };
    }
    return runRemoteTurn(turn, { client: connection.client, cardName: connection.card.name, maxReplyBytes: config.limits.maxReplyBytes });
  }
}
