import type { LegionEvents } from '@legion-collective/core';
import { describeClaimConflict } from './claim-conflict-line.js';

const conflict = (changes: Partial<LegionEvents['claim:conflict']> = {}): LegionEvents['claim:conflict'] => ({
  sessionId: 's',
  conversationId: 'coordinator__reviewer',
  initiator: 'coordinator',
  responder: 'reviewer',
  conflictId: 'cc_000000000001',
  at: '2026-12-07T18:00:00.000Z',
  participantId: 'reviewer',
  tool: 'file_write',
  path: 'NOTES.md',
  holder: {
    participantId: 'developer',
    sessionId: 's',
    conversationId: 'coordinator__developer',
    doing: 'Write the release notes',
    since: '2026-12-07T17:59:00.000Z',
  },
  ...changes,
});

describe('describeClaimConflict', () => {
  it('names who was refused, the file, the holder and what it is doing', () => {
    expect(describeClaimConflict(conflict())).toBe(
      "> **⚠ Conflict:** reviewer's file\\_write on `NOTES.md` did not happen: developer is changing it (Write the release notes).",
    );
  });

  it('says a conflict came from another process', () => {
    expect(describeClaimConflict(conflict({ remote: true }))).toMatch(/^> \*\*⚠ Conflict \(in another process\):\*\* /);
  });

  it("keeps the agents' text literal: no links, no code spans broken out of", () => {
    const line = describeClaimConflict(conflict({ path: 'a`b.md', holder: { ...conflict().holder, doing: '[click](http://x) *now*' } }));
    expect(line).toContain("`a'b.md`");
    expect(line).toContain('\\[click\\](http://x) \\*now\\*');
  });
});
