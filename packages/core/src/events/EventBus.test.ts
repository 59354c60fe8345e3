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
});
