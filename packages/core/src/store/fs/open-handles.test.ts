import { OpenHandles, type Closable } from './open-handles.js';

class Handle implements Closable {
  closed = 0;
  idle = true;
  close(): void {
    this.closed++;
  }
}

describe('OpenHandles', () => {
  it('closes the least recently used idle handles beyond its limit, keeps busy ones open past it, and reopens on demand', () => {
    const open = new OpenHandles<Handle>(2);
    const a = open.getOrOpen('a', () => new Handle());
    const b = open.getOrOpen('b', () => new Handle());
    expect(open.get('a')).toBe(a); // a is now the most recently used
    const c = open.getOrOpen('c', () => new Handle());
    expect(b.closed).toBe(1);
    expect(open.get('b')).toBeUndefined();
    expect([...open.values()].sort((x, y) => (x === a ? -1 : y === a ? 1 : 0))).toEqual([a, c]);

    a.idle = false;
    c.idle = false;
    const d = open.getOrOpen('d', () => new Handle());
    // Nothing idle to close: all three stay open.
    expect([a.closed, c.closed, d.closed]).toEqual([0, 0, 0]);
    expect(new Set(open.values())).toEqual(new Set([a, c, d]));
    a.idle = true;
    c.idle = true;
    const e = open.getOrOpen('e', () => new Handle());
    // Back under the limit: the two least recently used idle ones (a, then c) are closed.
    expect([a.closed, c.closed, d.closed]).toEqual([1, 1, 0]);
    expect(new Set(open.values())).toEqual(new Set([d, e]));

    const again = open.getOrOpen('a', () => new Handle());
    expect(again).not.toBe(a);
    open.delete('d');
    expect(d.closed).toBe(1);
    open.closeAll();
    expect([again.closed, e.closed]).toEqual([1, 1]);
    expect([...open.values()]).toEqual([]);
  });

  it('holds thousands of keys passing through in its fixed slots', () => {
    const open = new OpenHandles<Handle>(32);
    const all: Handle[] = [];
    for (let index = 0; index < 5000; index++) all.push(open.getOrOpen(`session/conversation-${index}`, () => new Handle()));
    expect([...open.values()]).toHaveLength(32);
    expect(all.filter((handle) => handle.closed === 0)).toEqual(all.slice(-32));
  });
});
