import { existsSync } from 'node:fs';
import { z } from 'zod';
import { readJsonFile, writeJsonAtomic } from '../../../store/index.js';

export const TODO_FORMAT_VERSION = 1;
export const MAX_TODO_ITEMS = 100;

export const TodoStatusSchema = z.enum(['pending', 'in_progress', 'done']);

export const TodoItemSchema = z.object({
  id: z.string().min(1).max(64).describe('Short stable id, e.g. "1" or "tests".'),
  text: z.string().min(1).max(1000).describe('What is to be done, as one imperative sentence.'),
  status: TodoStatusSchema.describe('pending, in_progress or done.'),
});
export type TodoItem = z.infer<typeof TodoItemSchema>;

export const TodoItemsSchema = z
  .array(TodoItemSchema)
  .max(MAX_TODO_ITEMS)
  .superRefine((items, context) => {
    const seen = new Set<string>();
    items.forEach((item, index) => {
      if (seen.has(item.id))
        context.addIssue({ code: 'custom', message: `duplicate id "${item.id}"; give each item its own id`, path: [index, 'id'] });
      seen.add(item.id);
    });
  });

/** The saved list: `.legion/sessions/<session>/todos/<agent>.json`. */
export const TodoFileSchema = z.object({
  version: z.literal(TODO_FORMAT_VERSION),
  agentId: z.string(),
  updatedAt: z.string(),
  items: z.array(TodoItemSchema),
});
export type TodoFile = z.infer<typeof TodoFileSchema>;

export function readTodos(path: string): TodoItem[] {
  if (!existsSync(path)) return [];
  return readJsonFile(path, TodoFileSchema, { what: 'todo list' }).items;
}

export function writeTodos(path: string, agentId: string, items: TodoItem[]): void {
  const file: TodoFile = { version: TODO_FORMAT_VERSION, agentId, updatedAt: new Date().toISOString(), items };
  writeJsonAtomic(path, file);
}

const MARKS: Record<TodoItem['status'], string> = { pending: '[ ]', in_progress: '[>]', done: '[x]' };

/** One line per item, with a count of each status: what a model needs to pick the next step. */
export function renderTodos(items: readonly TodoItem[]): string {
  if (items.length === 0) return 'The todo list is empty.';
  const count = (status: TodoItem['status']): number => items.filter((item) => item.status === status).length;
  const summary = `${items.length} item${items.length === 1 ? '' : 's'}: ${count('done')} done, ${count('in_progress')} in progress, ${count('pending')} pending`;
  return `Todo list (${summary})\n${items.map((item) => `${MARKS[item.status]} ${item.id}. ${item.text}`).join('\n')}`;
}
