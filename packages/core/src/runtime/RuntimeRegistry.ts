import type { Participant, ParticipantType } from '../collective/participant.js';
import { LegionError } from '../errors.js';
import type { ParticipantRuntime, RuntimeResolver } from '../session/turn.js';

/**
 * Maps participant types (and, for users, media) to runtimes. Core registers
 * agent and mock runtimes; each UI registers the runtime that answers for the user.
 */
export class RuntimeRegistry implements RuntimeResolver {
  private readonly runtimes = new Map<string, ParticipantRuntime>();

  /** Registers a runtime for a type, or for one medium of that type; returns a disposer. */
  register(type: ParticipantType, runtime: ParticipantRuntime, options: { medium?: string } = {}): () => void {
    const key = options.medium ? `${type}:${options.medium}` : type;
    this.runtimes.set(key, runtime);
    return () => {
      if (this.runtimes.get(key) === runtime) this.runtimes.delete(key);
    };
  }

  resolve(participant: Participant): ParticipantRuntime {
    const medium = participant.type === 'user' ? participant.medium : undefined;
    const runtime = (medium && this.runtimes.get(`${participant.type}:${medium}`)) || this.runtimes.get(participant.type);
    if (!runtime) {
      throw new LegionError(
        'no_runtime',
        participant.type === 'user'
          ? `Nobody can answer for user "${participant.id}" here: no user runtime is registered (the REPL and web UI register one).`
          : `No runtime is registered for participants of type "${participant.type}".`,
        { participantId: participant.id, type: participant.type },
      );
    }
    return runtime;
  }
}
