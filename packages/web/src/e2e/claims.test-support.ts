import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useModelAndBrowser } from './browser.test-support.js';
import { mockedWorkspace, startServe, useModel, type Serve } from './serve-process.test-support.js';

/** The message that makes the developer and the reviewer both write NOTES.md (`scriptNotesConflict`). */
export const BOTH_WRITE = 'Write the notes, both of you';

/**
 * A workspace whose developer and reviewer write files without asking (the conflict, not an
 * approval, is what the claims tests are about), its `legion serve`, and a page: fresh for each test.
 */
export function useClaimsWorkspace() {
  const { mock, browser } = useModelAndBrowser();
  const current = {} as { workspace: { dir: string; env: NodeJS.ProcessEnv }; serve: Serve; page: Page };
  const writesFreely = (participant: string): void => {
    const file = join(current.workspace.dir, '.legion/collective/participants', `${participant}.json`);
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), policies: { file_write: 'auto' } }, null, 2));
  };
  beforeEach(async () => {
    current.workspace = mockedWorkspace(mock.url);
    useModel(current.workspace.dir, 'reviewer', { provider: 'anthropic', model: 'claude-rev', baseURL: mock.url });
    writesFreely('developer');
    writesFreely('reviewer');
    current.serve = await startServe(current.workspace.dir, current.workspace.env);
    current.page = await browser().newPage({ viewport: { width: 1280, height: 860 } });
  });
  afterEach(async () => {
    await current.page?.close();
    await current.serve?.stop();
    rmSync(current.workspace.dir, { recursive: true, force: true });
  });
  return { mock, browser, current };
}

/**
 * On BOTH_WRITE the coordinator asks the developer to write NOTES.md and the reviewer to put the
 * changelog in it, at once. The developer writes first and its turn goes on (a slow reply of
 * `replyRepeats` lines) holding the file; the reviewer's write, 300 ms later, is refused.
 */
export function scriptNotesConflict(mock: ReturnType<typeof useModelAndBrowser>['mock'], replyRepeats: number): void {
  mock.on(
    { model: 'claude-test', userMessage: BOTH_WRITE, hasToolResult: false },
    {
      toolCalls: [
        { id: 'toolu_dev', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Write NOTES.md' }) },
        { id: 'toolu_rev', name: 'communicate', arguments: JSON.stringify({ to: 'reviewer', message: 'Put the changelog in NOTES.md' }) },
      ],
    },
  );
  mock.on({ model: 'claude-test', userMessage: BOTH_WRITE, hasToolResult: true }, { content: 'Both answered.' });
  mock.on(
    { model: 'gpt-test', userMessage: 'Write NOTES.md', hasToolResult: false },
    { toolCalls: [{ id: 'call_write', name: 'file_write', arguments: JSON.stringify({ path: 'NOTES.md', content: 'by developer\n' }) }] },
  );
  mock.on(
    { model: 'gpt-test', userMessage: 'Write NOTES.md', hasToolResult: true },
    { content: 'Checking NOTES.md line by line. '.repeat(replyRepeats) },
    { latency: 40, chunkSize: 8 },
  );
  mock.on(
    { model: 'claude-rev', userMessage: 'Put the changelog in NOTES.md', hasToolResult: false },
    {
      toolCalls: [{ id: 'toolu_rev_write', name: 'file_write', arguments: JSON.stringify({ path: 'NOTES.md', content: 'by reviewer\n' }) }],
    },
    { latency: 300, chunkSize: 8 },
  );
  mock.on({ model: 'claude-rev', userMessage: 'Put the changelog in NOTES.md', hasToolResult: true }, { content: 'It was taken.' });
}
