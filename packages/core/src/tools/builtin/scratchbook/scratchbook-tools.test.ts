import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkspacePaths } from '../../../store/fs/workspace-paths.js';
import { errorText, run, successText, tempWorkspace, toolContext } from '../__fixtures__/tool-context.js';
import type { Tool } from '../../tool.js';
import { createScratchbookTools } from './scratchbook-tools.js';
import { ScratchbookFileSchema } from './scratchbook.js';

describe('scratchbook tools', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  let context: ReturnType<typeof toolContext>;
  beforeEach(() => {
    workspace = tempWorkspace();
    context = toolContext({ root: workspace.root, callerId: 'worker', sessionId: 'session-a' });
  });
  afterEach(() => workspace.cleanup());

  /** A fresh set of tools each time: nothing is kept in memory between calls, as after a compaction or restart. */
  const call = async (name: string, input: unknown, on = context) => {
    const tool = createScratchbookTools().find((candidate) => candidate.name === name) as Tool;
    return run(tool, input, on);
  };

  it('adds, pins, updates and completes notes; pinned notes come first and completed ones are hidden', async () => {
    expect(successText(await call('scratch_add', { text: 'API base is /v2' }))).toBe('Added n1.');
    expect(successText(await call('scratch_add', { text: 'User wants no new dependencies', pinned: true }))).toBe('Added n2 (pinned).');
    expect(successText(await call('scratch_add', { text: 'Flaky test: parser.spec' }))).toBe('Added n3.');
    expect(successText(await call('scratch_pin', { id: 'n3' }))).toBe('Pinned n3.');
    expect(successText(await call('scratch_read', {}))).toBe(
      '3 notes:\nn2 [pinned] User wants no new dependencies\nn3 [pinned] Flaky test: parser.spec\nn1 API base is /v2',
    );
    expect(successText(await call('scratch_update', { id: 'n1', text: 'API base is /v3' }))).toBe('Updated n1.');
    expect(successText(await call('scratch_unpin', { id: 'n2' }))).toBe('Unpinned n2.');
    expect(successText(await call('scratch_complete', { id: 'n3' }))).toBe('Completed n3.');
    expect(successText(await call('scratch_read', {}))).toBe(
      '2 notes (1 completed not shown; include_done to see them):\nn1 API base is /v3\nn2 User wants no new dependencies',
    );
    expect(successText(await call('scratch_read', { include_done: true }))).toContain('n3 [done] Flaky test: parser.spec');
    expect(errorText(await call('scratch_pin', { id: 'n3' }))).toContain('n3 is completed');
    expect(errorText(await call('scratch_update', { id: 'n9', text: 'x' }))).toBe('No note "n9". Your notes: n1, n2, n3.');

    const file = join(new WorkspacePaths(workspace.root).sessionDir('session-a'), 'scratchbook', 'worker.json');
    const saved = ScratchbookFileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(saved).toMatchObject({ version: 1, agentId: 'worker', nextId: 4 });
  });

  it('keeps each agent its own notes in each session', async () => {
    await call('scratch_add', { text: 'mine' });
    expect(
      successText(await call('scratch_read', {}, toolContext({ root: workspace.root, callerId: 'reviewer', sessionId: 'session-a' }))),
    ).toBe('The scratchbook has no open notes.');
    expect(
      successText(await call('scratch_read', {}, toolContext({ root: workspace.root, callerId: 'worker', sessionId: 'session-b' }))),
    ).toBe('The scratchbook has no open notes.');
    expect(successText(await call('scratch_add', { text: 'next' }))).toBe('Added n2.');
  });
});
