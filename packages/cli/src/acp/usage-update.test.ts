import { emptyTotals } from '@legion-collective/core';
import { usageUpdate } from './usage-update.js';

describe('usage as the editor sees it', () => {
  it("carries the tree's cost and tokens, and the entry agent's context", () => {
    const total = { ...emptyTotals(), calls: 3, inputTokens: 1200, outputTokens: 300, costUsd: 0.0081 };
    expect(usageUpdate(total, { used: 900, size: 200_000 })).toEqual({
      sessionUpdate: 'usage_update',
      used: 900,
      size: 200_000,
      cost: { amount: 0.0081, currency: 'USD' },
      _meta: {
        legion: {
          calls: 3,
          inputTokens: 1200,
          outputTokens: 300,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          costUsd: 0.0081,
          unpricedCalls: 0,
        },
      },
    });
  });

  it('claims no cost when a call of the tree had no known price', () => {
    const update = usageUpdate({ ...emptyTotals(), calls: 2, costUsd: 0.002, unpricedCalls: 1 }, { used: 10, size: 100 });
    expect(update).not.toHaveProperty('cost');
    expect(update._meta).toEqual(expect.objectContaining({ legion: expect.objectContaining({ unpricedCalls: 1, costUsd: 0.002 }) }));
  });
});
