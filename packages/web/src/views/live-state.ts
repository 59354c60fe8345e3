import type { Participant } from '../api/wire.js';
import { displayName } from './names.js';

type LiveState = Pick<Participant, 'state' | 'detail' | 'askedBy' | 'outcome' | 'code'> & { type?: Participant['type'] };

/**
 * A participant's state in words, as the server derived it: what it does now, whom it waits for,
 * and for an idle one, how a last turn that did not succeed ended.
 */
export function stateText(live: LiveState, participants: readonly Participant[] = []): string {
  switch (live.state) {
    case 'thinking':
      return 'thinking';
    case 'tool':
      return live.detail ? `running ${live.detail}` : 'running a tool';
    case 'delegate':
      // The detail is the delegate's id: named as everywhere else.
      return live.detail ? `waiting for ${displayName(participants, live.detail)}` : 'waiting for a delegate';
    case 'approval':
      return live.detail ? `waiting for you: approve ${live.detail}` : 'waiting for your approval';
    case 'user':
      // On the user's own card: they are the one asked.
      if (live.type === 'user') {
        // Who asks, named as everywhere else (the server's `detail` holds the id, for clients that show it as it is).
        if (live.askedBy !== undefined && live.detail?.startsWith('question'))
          return `you are asked: question from ${displayName(participants, live.askedBy)}`;
        return live.detail ? `you are asked: ${live.detail}` : 'you are asked';
      }
      return live.detail ? `waiting for you: ${live.detail}` : 'waiting for you';
    case 'idle':
      if (live.outcome === 'failed') return `idle · last turn failed${live.code ? ` (${live.code})` : ''}`;
      if (live.outcome === 'cancelled') return 'idle · last turn stopped';
      return 'idle';
  }
}
