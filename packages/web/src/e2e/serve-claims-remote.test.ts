import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, screenshot } from './browser.test-support.js';
import { BOTH_WRITE, scriptNotesConflict, useClaimsWorkspace } from './claims.test-support.js';
import { legion } from './serve-process.test-support.js';

// Issue 33, claims: a write refused in another process (a `legion run` in a terminal beside the
// `legion serve`) shows in the browser, as one the serve's own turns raise does. The built binary,
// agents on the real SDKs against aimock, in Chromium.
const TEST_MS = 90_000;

describe.skipIf(CHROMIUM === null)('legion serve: a claim conflict from another process', () => {
  const { mock, browser, current } = useClaimsWorkspace();

  it(
    "a legion run's refused write shows as a notice naming who was refused, the file, the holder and what it is doing, once",
    async () => {
      const { workspace, serve, page } = current;
      scriptNotesConflict(mock, 30);

      await page.goto(serve.url);
      await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
      // The turn runs in another process, in the session the page shows (the workspace's latest).
      const run = await legion(['run', BOTH_WRITE], workspace.dir, workspace.env);
      expect(run.status, run.stderr).toBe(0);
      expect(readFileSync(join(workspace.dir, 'NOTES.md'), 'utf8')).toBe('by developer\n');

      const notice = page.getByTestId('claim-conflict');
      await notice.waitFor();
      expect(await notice.textContent()).toBe(
        "⚠ Reviewer's file_write on NOTES.md did not happen: Developer is changing it (Write NOTES.md)",
      );
      // The claim was the other process's: its turn gave it back without an event here, and the count goes.
      // The page re-reads claims every 2 s while any are listed, so by then the follower has read the
      // session's conflicts log again: the notice is still one.
      await page.getByTestId('nav-claims-count').waitFor({ state: 'detached' });
      expect(await page.getByTestId('claim-conflict').count()).toBe(1);
      await screenshot(page, 'claims-conflict-remote');

      // A page opened afterwards has no live event of it: the Claims view reads the session's record.
      const later = await browser().newPage({ viewport: { width: 1280, height: 860 } });
      try {
        await later.goto(serve.url);
        await later.getByTestId('connection').and(later.locator('[data-state="open"]')).waitFor();
        await later.getByTestId('nav-claims').click();
        const refused = later.getByTestId('claims-conflicts').locator('li');
        await refused.first().waitFor();
        expect(await refused.count()).toBe(1);
        expect(await refused.first().textContent()).toContain(
          "Reviewer's file_write on NOTES.md did not happen: Developer was changing it (Write NOTES.md)",
        );
        // The notice is for what happens while you look; the record is in the Claims view.
        expect(await later.getByTestId('claim-conflict').count()).toBe(0);
        await screenshot(later, 'claims-conflict-history');
      } finally {
        await later.close();
      }
    },
    TEST_MS,
  );
});
