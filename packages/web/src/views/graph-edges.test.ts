import type { ConversationSummary } from '../api/wire.js';
import { pairEdges } from './graph-edges.js';

const conversation = (id: string, fields: Partial<ConversationSummary> = {}): ConversationSummary => {
  const [initiator = '', responder = '', name] = id.split('__');
  return { id, initiator, responder, busy: false, messages: 2, ...(name ? { name } : {}), ...fields };
};

describe('pairEdges', () => {
  it('draws one arrow per direction of a pair, named by its one conversation', () => {
    const edges = pairEdges(
      [conversation('user__coordinator'), conversation('coordinator__developer__task0'), conversation('developer__coordinator')],
      new Set(),
      null,
    );
    expect(edges.map((edge) => [edge.id, edge.label, edge.opens])).toEqual([
      ['user__coordinator', undefined, 'user__coordinator'],
      ['coordinator__developer', 'task0', 'coordinator__developer__task0'],
      ['developer__coordinator', undefined, 'developer__coordinator'],
    ]);
  });

  it('gathers a pair’s conversations: counted, lit while any runs, opening the running one', () => {
    const pair = [
      conversation('coordinator__developer__task0', { lastAt: '2026-12-08T00:00:03Z', messages: 4 }),
      conversation('coordinator__developer__task1', { lastAt: '2026-12-08T00:00:01Z', messages: 2 }),
      conversation('coordinator__developer__task2', { lastAt: '2026-12-08T00:00:02Z', messages: 6 }),
    ];
    const [idle] = pairEdges(pair, new Set(), null);
    expect(idle).toMatchObject({ id: 'coordinator__developer', label: '3 conversations', messages: 12, active: false, selected: false });
    // Nothing running: the latest.
    expect(idle?.opens).toBe('coordinator__developer__task0');
    const [running] = pairEdges(pair, new Set(['coordinator__developer__task1']), null);
    expect(running).toMatchObject({ active: true, opens: 'coordinator__developer__task1' });
    // The one on screen marks the arrow; a click goes where the pair works now, else stays.
    const [shown] = pairEdges(pair, new Set(['coordinator__developer__task1']), 'coordinator__developer__task2');
    expect(shown).toMatchObject({ active: true, selected: true, opens: 'coordinator__developer__task1' });
    const [stays] = pairEdges(pair, new Set(['coordinator__developer__task1']), 'coordinator__developer__task1');
    expect(stays).toMatchObject({ selected: true, opens: 'coordinator__developer__task1' });
    const [idleShown] = pairEdges(pair, new Set(), 'coordinator__developer__task2');
    expect(idleShown).toMatchObject({ selected: true, opens: 'coordinator__developer__task2' });
  });
});
