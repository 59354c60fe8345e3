/**
 * Slots for the `communicate` calls of one response: at most `limit` run at
 * once, the others wait in call order and start as slots free up. A waiting
 * call whose turn is cancelled leaves the queue without taking a slot.
 */
export class DelegateSlots {
  private running = 0;
  private readonly queue: Array<{ start: () => void }> = [];

  constructor(private readonly limit: number) {}

  /** Nothing runs or waits: the slots can be forgotten. */
  get idle(): boolean {
    return this.running === 0 && this.queue.length === 0;
  }

  /** Takes a slot now if one is free; otherwise `onQueued` is told the call's place and the promise resolves when it starts. */
  async acquire(
    signal: AbortSignal,
    onQueued: (waiting: { position: number; running: number; limit: number }) => void,
  ): Promise<'started' | 'cancelled'> {
    if (this.running < this.limit && this.queue.length === 0) {
      this.running += 1;
      return 'started';
    }
    if (signal.aborted) return 'cancelled';
    return new Promise((resolve) => {
      const entry = {
        start: () => {
          signal.removeEventListener('abort', onAbort);
          this.running += 1;
          resolve('started');
        },
      };
      const onAbort = (): void => {
        const index = this.queue.indexOf(entry);
        if (index >= 0) this.queue.splice(index, 1);
        resolve('cancelled');
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(entry);
      onQueued({ position: this.queue.length, running: this.running, limit: this.limit });
    });
  }

  release(): void {
    this.running -= 1;
    while (this.running < this.limit && this.queue.length > 0) this.queue.shift()!.start();
  }
}
