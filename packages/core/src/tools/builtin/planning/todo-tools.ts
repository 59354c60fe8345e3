import { z } from 'zod';
import { errorMessage } from '../../../kernel/index.js';
import { defineTool, type Tool, type ToolContext } from '../../tool.js';
import { resolveToolPath } from '../../../store/index.js';
import { claimBeforeWrite } from '../files/file-claim-check.js';
import { checkAgentStateKey } from '../agent-session-file.js';
import { MAX_TODO_ITEMS, renderTodos, TODO_FORMAT_VERSION, TodoFileSchema, TodoItemsSchema, type TodoFile } from './todo-list.js';

const FOLDER = 'todos';
/** Files one todo_write may claim: a plan's files, not a tree's. */
const MAX_CLAIMED_PATHS = 50;

/**
 * Claims the files a plan declares, as a write would (so the model can say what it will change
 * before it starts, and parallel agents learn of it before they write): why each one that could
 * not be claimed was not.
 */
async function claimDeclared(context: ToolContext, paths: readonly string[]): Promise<string[]> {
  const refused: string[] = [];
  for (const path of paths) {
    const resolved = resolveToolPath(context.workspaceRoot, path, 'write');
    if (!resolved.ok) {
      refused.push(resolved.error);
      continue;
    }
    const conflict = await claimBeforeWrite(context, 'todo_write', resolved.relative);
    if (conflict !== undefined) refused.push(conflict);
  }
  return refused;
}

/** todo_write and todo_read: the calling agent's plan for this session. */
export function createTodoTools(): Tool[] {
  return [
    defineTool({
      name: 'todo_write',
      description:
        'Replace your todo list for this session with the items given (send the whole list every time, not only changes). ' +
        'Use it for tasks of three or more steps: plan them, mark one item in_progress before starting it, and mark it done as soon as it is. ' +
        `Items: id, text, status (pending | in_progress | done); at most ${MAX_TODO_ITEMS}. Only you see your list; it survives context compaction. ` +
        "claim: files you are about to change in this turn, claimed now so that other agents' writes to them are refused until your turn ends (your own writes claim files too).",
      input: () =>
        z.object({
          items: TodoItemsSchema.describe('The complete new list, in order.'),
          claim: z
            .array(z.string().min(1))
            .max(MAX_CLAIMED_PATHS)
            .optional()
            .describe('Workspace-relative paths of files you are about to change in this turn: claimed for you until the turn ends.'),
        }),
      // Changes only the caller's own plan inside the session folder, never the workspace: runs like a read.
      effect: 'read',
      async execute(input, context) {
        const problem = checkAgentStateKey(context);
        if (problem) return { status: 'error', error: problem };
        const file: TodoFile = {
          version: TODO_FORMAT_VERSION,
          agentId: context.callerId,
          updatedAt: new Date().toISOString(),
          items: input.items,
        };
        await context.session.agentState.put(FOLDER, context.callerId, file);
        const refused = await claimDeclared(context, input.claim ?? []);
        if (refused.length > 0)
          return {
            status: 'error',
            error: `Your list was saved, but not every file was claimed:\n${refused.map((line) => `- ${line}`).join('\n')}`,
          };
        return { status: 'success', data: renderTodos(input.items) };
      },
    }),
    defineTool({
      name: 'todo_read',
      description: "Show your todo list for this session, with each item's status.",
      input: () => z.object({}),
      concurrent: true,
      effect: 'read',
      async execute(_input, context) {
        const problem = checkAgentStateKey(context);
        if (problem) return { status: 'error', error: problem };
        try {
          const file = await context.session.agentState.get(FOLDER, context.callerId, TodoFileSchema);
          return { status: 'success', data: renderTodos(file?.items ?? []) };
        } catch (error) {
          return {
            status: 'error',
            error: `Your saved todo list cannot be read (${errorMessage(error)}). Write a fresh one with todo_write.`,
          };
        }
      },
    }),
  ];
}
