import type { Participant, ParticipantType } from '../../team/index.js';
import { LegionError } from '../../kernel/index.js';
import type { ParticipantRuntime, RuntimeResolver } from '../../session/index.js';

/**
 * Maps participant types to runtimes. Legion registers one for each type; a UI
 * does not register here: it attaches its user with `legion.attachUser`,
 * which the user runtime asks.
 */
export class RuntimeRegistry implements RuntimeResolver {
  private readonly runtimes = new Map<ParticipantType, ParticipantRuntime>();

  /** Registers the runtime for a type; returns a disposer. */
  register(type: ParticipantType, runtime: ParticipantRuntime): () => void {
    this.runtimes.set(type, runtime);
    return () => {
      if (this.runtimes.get(type) === runtime) this.runtimes.delete(type);
    };
  }

  resolve(participant: Participant): ParticipantRuntime {
    const runtime = this.runtimes.get(participant.type);
    if (!runtime) {
      throw new LegionError('no_runtime', `No runtime is registered for participants of type "${participant.type}".`, {
        participantId: participant.id,
        type: participant.type,
      });
    }
    return runtime;
  }
}
