import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkspacePaths } from '../../../store/fs/workspace-paths.js';
import { errorText, run, successText, tempWorkspace, toolContext } from '../__fixtures__/tool-context.js';
import type { Tool } from '../../tool.js';
import { createTodoTools } from './todo-tools.js';

describe('todo_write and todo_read', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  let tools: Record<string, Tool>;
  beforeEach(() => {
    workspace = tempWorkspace();
    tools = Object.fromEntries(createTodoTools().map((tool) => [tool.name, tool]));
  });
  afterEach(() => workspace.cleanup());

  const items = [
    { id: '1', text: 'Read the failing test', status: 'done' },
    { id: '2', text: 'Fix the parser', status: 'in_progress' },
    { id: '3', text: 'Run the suite', status: 'pending' },
  ];

  it('replaces the list, reads it back, and keeps it per agent and per session', async () => {
    const worker = toolContext({ root: workspace.root, callerId: 'worker', sessionId: 'session-a' });
    const rendered =
      'Todo list (3 items: 1 done, 1 in progress, 1 pending)\n[x] 1. Read the failing test\n[>] 2. Fix the parser\n[ ] 3. Run the suite';
    expect(successText(await run(tools.todo_write!, { items }, worker))).toBe(rendered);
    expect(successText(await run(tools.todo_read!, {}, worker))).toBe(rendered);

    const saved = JSON.parse(
      readFileSync(join(new WorkspacePaths(workspace.root).sessionDir('session-a'), 'todos', 'worker.json'), 'utf8'),
    ) as { version: number; items: unknown[] };
    expect(saved).toMatchObject({ version: 1, agentId: 'worker', items });

    expect(
      successText(await run(tools.todo_read!, {}, toolContext({ root: workspace.root, callerId: 'reviewer', sessionId: 'session-a' }))),
    ).toBe('The todo list is empty.');
    expect(
      successText(await run(tools.todo_read!, {}, toolContext({ root: workspace.root, callerId: 'worker', sessionId: 'session-b' }))),
    ).toBe('The todo list is empty.');

    expect(successText(await run(tools.todo_write!, { items: [{ id: '3', text: 'Run the suite', status: 'done' }] }, worker))).toBe(
      'Todo list (1 item: 1 done, 0 in progress, 0 pending)\n[x] 3. Run the suite',
    );
  });

  it('rejects duplicate ids and unknown statuses by schema, naming the field', () => {
    const duplicate = tools.todo_write!.inputSchema.safeParse({ items: [items[0], { ...items[1], id: '1' }] });
    expect(duplicate.success).toBe(false);
    expect(duplicate.error?.issues[0]).toMatchObject({ path: ['items', 1, 'id'], message: expect.stringContaining('duplicate id "1"') });
    expect(tools.todo_write!.inputSchema.safeParse({ items: [{ id: '1', text: 'x', status: 'blocked' }] }).success).toBe(false);
  });

  it('reports a damaged saved list instead of failing', async () => {
    const worker = toolContext({ root: workspace.root, sessionId: 'session-a' });
    await run(tools.todo_write!, { items }, worker);
    const file = join(new WorkspacePaths(workspace.root).sessionDir('session-a'), 'todos', 'worker.json');
    writeFileSync(file, '{ not json');
    expect(errorText(await run(tools.todo_read!, {}, worker))).toContain('Write a fresh one with todo_write');
  });
});
