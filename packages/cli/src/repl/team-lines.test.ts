import { foldLines, waitingSummary, whoDoesWhat } from './team-lines.js';

describe('the lines that make a team readable', () => {
  it('a message folds past four lines, saying how many more; one more line is shown rather than folded', () => {
    expect(foldLines('1\n2\n3\n4\n5\n6')).toEqual({ shown: ['1', '2', '3', '4'], hidden: 2 });
    expect(foldLines('1\n2\n3\n4\n5')).toEqual({ shown: ['1', '2', '3', '4', '5'], hidden: 0 });
    expect(foldLines('one line')).toEqual({ shown: ['one line'], hidden: 0 });
  });

  it('what waits for the user: approvals and questions counted, each asker once', () => {
    expect(waitingSummary([])).toBe('');
    expect(waitingSummary([{ kind: 'approval', requester: 'developer', tool: 'file_write' }])).toBe(
      'waiting for you: 1 approval (developer → file_write)',
    );
    expect(
      waitingSummary([
        { kind: 'approval', requester: 'developer', tool: 'file_write' },
        { kind: 'question', from: 'reviewer' },
        { kind: 'approval', requester: 'developer', tool: 'file_write' },
        { kind: 'approval', requester: 'reviewer', tool: 'shell' },
      ]),
    ).toBe('waiting for you: 3 approvals (developer → file_write ×2, reviewer → shell), 1 question (reviewer)');
  });

  it('who is working on what: a delegation followed down to its delegate, parallel ones together', () => {
    const working = new Map([
      ['user__coordinator', 'coordinator'],
      ['coordinator__developer', 'developer'],
      ['coordinator__reviewer', 'reviewer'],
    ]);
    const call = (participantId: string, name: string, input: Record<string, unknown>) => ({
      participantId,
      toolUse: { type: 'tool_use' as const, id: `${participantId}-${name}`, name, input },
    });
    expect(
      whoDoesWhat('user', working, [
        call('coordinator', 'communicate', { to: 'developer', message: 'a' }),
        call('coordinator', 'communicate', { to: 'reviewer', message: 'b' }),
        call('reviewer', 'file_read', { path: 'src/a.ts' }),
      ]),
    ).toEqual(['coordinator → (developer, reviewer: file_read src/a.ts)']);
    expect(whoDoesWhat('user', new Map([['user__coordinator', 'coordinator']]), [])).toEqual(['coordinator']);
  });
});
