import { waitsIn } from './waiting-on-you.js';

// The developer, delegated to by the coordinator the user talks to, asks the user something.
const question = { conversationId: 'developer__user', chain: ['user', 'coordinator', 'developer'] };

describe('waitsIn: the conversations whose turn waits on what was asked of the user', () => {
  it('is the conversation it was asked in and every default conversation up the chain', () => {
    for (const id of ['developer__user', 'coordinator__developer', 'user__coordinator']) expect(waitsIn(question, id, {}), id).toBe(true);
    for (const id of ['user__developer', 'coordinator__reviewer', 'user__coordinator__other'])
      expect(waitsIn(question, id, {}), id).toBe(false);
  });

  it('follows the running turns into named conversations, and then not into the default ones of the same pair', () => {
    const activeTurns = {
      user__coordinator__release: { participantId: 'coordinator', chain: ['user'] },
      coordinator__developer__api: { participantId: 'developer', chain: ['user', 'coordinator'] },
      // A turn elsewhere, not on this chain.
      user__reviewer: { participantId: 'reviewer', chain: ['user'] },
    };
    expect(waitsIn(question, 'user__coordinator__release', activeTurns)).toBe(true);
    expect(waitsIn(question, 'coordinator__developer__api', activeTurns)).toBe(true);
    expect(waitsIn(question, 'user__coordinator', activeTurns)).toBe(false);
    expect(waitsIn(question, 'coordinator__developer', activeTurns)).toBe(false);
    expect(waitsIn(question, 'user__reviewer', activeTurns)).toBe(false);
  });

  it('places an approval in its requester’s conversation and up the chain', () => {
    const approval = { conversationId: 'coordinator__developer', chain: ['user', 'coordinator', 'developer'] };
    expect(waitsIn(approval, 'coordinator__developer', {})).toBe(true);
    expect(waitsIn(approval, 'user__coordinator', {})).toBe(true);
    expect(waitsIn(approval, 'developer__user', {})).toBe(false);
  });
});
