import { LegionError } from '../../errors.js';

/** A lease was renewed after another holder took it over (it had expired or its holder looked dead). */
export class LeaseLostError extends LegionError {
  constructor(readonly resource: string, owner: string) {
    super('lease_lost', `The lock on ${resource} held by "${owner}" was taken over by another holder after it expired; stop writing to it.`, { resource, owner });
  }
}
