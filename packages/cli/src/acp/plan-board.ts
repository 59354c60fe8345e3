import type { PlanEntry, SessionUpdate } from '@agentclientprotocol/sdk';
import { z } from 'zod';

/** Each agent's todo list as its last successful `todo_write` left it, in the order agents first wrote one. */
export type PlanBoard = Map<string, PlanEntry[]>;

/** `todo_write`'s input, as far as the plan needs it (the tool itself validated it before it succeeded). */
const TodoInputSchema = z.object({
  items: z.array(z.object({ text: z.string(), status: z.enum(['pending', 'in_progress', 'done']) })),
});

/**
 * The ACP `plan` after `agent` wrote its todos: every agent's list of the tree in one plan (ACP has
 * one plan per session, and a delegate's steps are part of the work), a delegate's entries prefixed
 * with its name. An input that is not a todo list leaves the plan as it is (undefined).
 */
export function planUpdate(board: PlanBoard, agent: string, input: unknown, entryAgent: string): SessionUpdate | undefined {
  const parsed = TodoInputSchema.safeParse(input);
  if (!parsed.success) return undefined;
  board.set(
    agent,
    parsed.data.items.map((item) => ({
      content: agent === entryAgent ? item.text : `${agent}: ${item.text}`,
      priority: 'medium',
      status: item.status === 'done' ? 'completed' : item.status,
    })),
  );
  return { sessionUpdate: 'plan', entries: [...board.values()].flat() };
}
