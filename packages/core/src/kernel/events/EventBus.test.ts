import { EventBus } from './EventBus.js';

const warning = { path: 'a.jsonl', offset: 3, problem: 'torn' };

describe('EventBus', () => {
  it('delivers typed events to subscribers of that name and to onAny, until unsubscribed', () => {
    const bus = new EventBus();
    const named: string[] = [];
    const any: string[] = [];
    const off = bus.on('storage:warning', (event) => named.push(event.problem));
    bus.onAny((event) => any.push(event.type));
    bus.emit('storage:warning', warning);
    off();
    bus.emit('storage:warning', warning);
    expect(named).toEqual(['torn']);
    expect(any).toEqual(['storage:warning', 'storage:warning']);
  });

  it('reports a throwing subscriber as error:raised and still delivers to the others', () => {
    const bus = new EventBus();
    const errors: string[] = [];
    const heard: number[] = [];
    bus.on('storage:warning', () => {
      throw new Error('subscriber bug');
    });
    bus.on('storage:warning', (event) => heard.push(event.offset));
    bus.on('error:raised', (event) => errors.push(`${event.scope}: ${event.message}`));
    bus.emit('storage:warning', warning);
    expect(heard).toEqual([3]);
    expect(errors).toEqual(['subscriber of storage:warning: subscriber bug']);
  });

  it('knows whether anyone listens, so hot paths can skip building events', () => {
    const bus = new EventBus();
    expect(bus.hasListeners('text:delta')).toBe(false);
    const off = bus.on('text:delta', () => {});
    expect(bus.hasListeners('text:delta')).toBe(true);
    off();
    expect(bus.hasListeners('text:delta')).toBe(false);
  });

  it('numbers delivered events 1, 2, 3, … per bus; events nobody hears take no number', () => {
    const bus = new EventBus();
    bus.emit('storage:warning', warning);
    const seen: Array<[string, number]> = [];
    bus.onAny((event) => seen.push([event.type, event.seq]));
    bus.emit('storage:warning', warning);
    bus.emit('tool:register', { name: 'a', providerId: 'p' });
    bus.emit('storage:warning', warning);
    expect(seen).toEqual([
      ['storage:warning', 1],
      ['tool:register', 2],
      ['storage:warning', 3],
    ]);
    expect(bus.lastSeq).toBe(3);
    expect(new EventBus().lastSeq).toBe(0);
  });

  it('a subscriber of one name sees a rising subsequence of the numbers', () => {
    const bus = new EventBus();
    const named: number[] = [];
    bus.on('tool:register', (event) => named.push(event.seq));
    bus.onAny(() => {});
    bus.emit('tool:register', { name: 'a', providerId: 'p' });
    bus.emit('storage:warning', warning);
    bus.emit('tool:register', { name: 'b', providerId: 'p' });
    expect(named).toEqual([1, 3]);
  });

  it('delivers an event emitted during another delivery afterwards, so every subscriber hears them in seq order', () => {
    const bus = new EventBus();
    const first: string[] = [];
    const second: string[] = [];
    bus.onAny((event) => {
      first.push(`${event.seq} ${event.type}`);
      if (event.type === 'tool:register') bus.emit('tool:unregister', { name: event.name, providerId: event.providerId });
    });
    bus.onAny((event) => second.push(`${event.seq} ${event.type}`));
    bus.emit('tool:register', { name: 'a', providerId: 'p' });
    expect(first).toEqual(['1 tool:register', '2 tool:unregister']);
    expect(second).toEqual(['1 tool:register', '2 tool:unregister']);
  });

  it('reports a throwing subscriber after the event it threw on, to every subscriber', () => {
    const bus = new EventBus();
    const heard: string[] = [];
    bus.on('storage:warning', () => {
      throw new Error('subscriber bug');
    });
    bus.onAny((event) => heard.push(`${event.seq} ${event.type}`));
    bus.emit('storage:warning', warning);
    expect(heard).toEqual(['1 storage:warning', '2 error:raised']);
  });
});
