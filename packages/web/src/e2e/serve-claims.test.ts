import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, screenshot } from './browser.test-support.js';
import { BOTH_WRITE, scriptNotesConflict, useClaimsWorkspace } from './claims.test-support.js';
import { legion } from './serve-process.test-support.js';

// Issue 33, claims: the browser shows a refused write as a notice, lists the files running turns
// claimed, and releases one. The built `legion serve`, agents on the real SDKs against aimock, in Chromium.
const TEST_MS = 90_000;

describe.skipIf(CHROMIUM === null)('legion serve: claims', () => {
  const { mock, current } = useClaimsWorkspace();

  it(
    'a refused write is a notice; the claims view lists the holder and releases the file',
    async () => {
      const { workspace, serve, page } = current;
      scriptNotesConflict(mock, 60);

      await page.goto(serve.url);
      await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
      await page.getByTestId('composer-text').fill(BOTH_WRITE);
      await page.getByTestId('composer-send').click();

      // The human sees the refused write, naming the holder and what it is doing.
      const notice = page.getByTestId('claim-conflict');
      await notice.waitFor();
      expect(await notice.textContent()).toBe(
        "⚠ Reviewer's file_write on NOTES.md did not happen: Developer is changing it (Write NOTES.md)",
      );
      await screenshot(page, 'claims-conflict');

      // The claims view lists the file its holder still claims, and releases it.
      await page.getByTestId('nav-claims').click();
      const row = page.getByTestId('claim-NOTES.md');
      await row.waitFor();
      expect(await row.locator('td').first().textContent()).toBe('Developer');
      expect(await page.getByTestId('nav-claims-count').textContent()).toBe('1');
      await screenshot(page, 'claims-view');
      await page.getByTestId('claim-release-NOTES.md').click();
      await page.getByTestId('claims-empty').waitFor();
      const listed = await legion(['claims', '--json'], workspace.dir, workspace.env);
      expect(JSON.parse(listed.stdout)).toEqual({ claims: [] });
      expect(readFileSync(join(workspace.dir, 'NOTES.md'), 'utf8')).toBe('by developer\n');
    },
    TEST_MS,
  );
});
