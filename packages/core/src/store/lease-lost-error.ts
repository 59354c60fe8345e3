import { LegionError } from '../kernel/index.js';

/**
 * A lease was renewed, or written under, after another holder took it over (it had expired, or
 * its holder looked dead) or after it was released. Whatever was to be written was not.
 */
export class LeaseLostError extends LegionError {
  constructor(
    readonly resource: string,
    owner: string,
  ) {
    super(
      'lease_lost',
      `The lock on ${resource} held by "${owner}" was taken over by another holder after it expired (this process was paused or too slow to renew it); ` +
        'nothing more of its turn is written. The new holder answers from the log; send the message again if it is still needed.',
      { resource, owner },
    );
  }
}
