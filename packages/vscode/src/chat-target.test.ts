import { chatTarget, followupAgents } from './chat-target.js';

describe("the chat's target agent, kept in its results' metadata", () => {
  it('is the latest /to <agent> switch in the history, and none (the entry agent) before any', () => {
    expect(chatTarget([])).toBeUndefined();
    expect(chatTarget([{ participants: ['coordinator', 'developer'] }])).toBeUndefined();
    expect(chatTarget([{ participants: [], target: 'developer' }, { participants: ['developer'] }])).toBe('developer');
    expect(
      chatTarget([{ participants: [], target: 'developer' }, { participants: ['developer'] }, { participants: [], target: 'reviewer' }]),
    ).toBe('reviewer');
  });

  it('ignores metadata of another shape (an older extension, another participant) instead of failing the request', () => {
    expect(chatTarget([{ participants: [], target: 'developer' }, undefined, 'text', { target: 42 }, { target: '' }])).toBe('developer');
    expect(chatTarget([{ target: 'reviewer' }])).toBe('reviewer');
  });

  it('offers to continue with each agent that took part', () => {
    expect(followupAgents({ participants: ['coordinator', 'developer'] })).toEqual(['coordinator', 'developer']);
    expect(followupAgents({ participants: 'developer' })).toEqual([]);
    expect(followupAgents(undefined)).toEqual([]);
  });
});
