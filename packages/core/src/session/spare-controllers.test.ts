import { giveBackController, takeController } from './spare-controllers.js';

describe('spare AbortControllers', () => {
  it('hands a clean controller out again, and never one that aborted or that something still listens on', () => {
    const clean = takeController();
    const listener = (): void => {};
    clean.signal.addEventListener('abort', listener);
    clean.signal.removeEventListener('abort', listener);
    giveBackController(clean);
    expect(takeController()).toBe(clean);

    const aborted = takeController();
    aborted.abort('stop');
    giveBackController(aborted);
    const next = takeController();
    expect(next).not.toBe(aborted);
    expect(next.signal.aborted).toBe(false);

    // A listener left behind would be called by the next owner's abort.
    const listened = takeController();
    const left = vi.fn();
    listened.signal.addEventListener('abort', left);
    giveBackController(listened);
    const other = takeController();
    expect(other).not.toBe(listened);
    other.abort();
    expect(left).not.toHaveBeenCalled();
  });
});
