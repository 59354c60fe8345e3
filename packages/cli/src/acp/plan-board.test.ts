import { planUpdate, type PlanBoard } from './plan-board.js';

describe('the plan', () => {
  it("holds every agent's latest todo list, a delegate's entries under its name", () => {
    const board: PlanBoard = new Map();
    planUpdate(board, 'coordinator', { items: [{ id: '1', text: 'Split the work', status: 'done' }] }, 'coordinator');
    planUpdate(board, 'developer', { items: [{ id: 'a', text: 'Write tests', status: 'pending' }] }, 'coordinator');
    const update = planUpdate(board, 'coordinator', { items: [{ id: '1', text: 'Split the work', status: 'in_progress' }] }, 'coordinator');
    expect(update).toEqual({
      sessionUpdate: 'plan',
      entries: [
        { content: 'Split the work', priority: 'medium', status: 'in_progress' },
        { content: 'developer: Write tests', priority: 'medium', status: 'pending' },
      ],
    });
  });

  it('leaves the plan alone for an input that is not a todo list', () => {
    const board: PlanBoard = new Map();
    expect(planUpdate(board, 'coordinator', { items: 'none' }, 'coordinator')).toBeUndefined();
    expect(board.size).toBe(0);
  });
});
