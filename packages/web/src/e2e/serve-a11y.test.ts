import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { CHROMIUM, useModelAndBrowser, screenshot } from './browser.test-support.js';
import { mockedWorkspace, startServe, type Serve } from './serve-process.test-support.js';

// Every view of the browser app checked by axe-core (injected into the page) at 1280 px, with
// content in it: a conversation with a delegation, a pending approval, a pending question.
const TEST_MS = 120_000;
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

/** axe's serious and critical violations on the page as it is, each as `rule: help — where: why`. */
async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the debugging protocol, not a <script>: the app's CSP (rightly) refuses inline scripts.
  // (Expressions as strings: these tests compile without the DOM's types.)
  if (!(await page.evaluate<boolean>("'axe' in window"))) await page.evaluate(readFileSync(AXE, 'utf8'));
  const violations = await page.evaluate<AxeViolation[]>('axe.run(document).then((result) => result.violations)');
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) =>
      violation.nodes.map(
        (node) => `${violation.id} (${violation.impact}): ${violation.help} — ${JSON.stringify(node.target)}: ${node.failureSummary ?? ''}`,
      ),
    );
}

/**
 * The controls of the page (buttons, links, fields) that Tab never reaches, starting from the top:
 * each as its test id or text. (A string expression: these tests compile without the DOM's types.)
 */
async function unreachableByKeyboard(page: Page): Promise<string[]> {
  const label = `(element) => element.getAttribute('data-testid') ?? element.tagName + ' ' + (element.textContent ?? '').trim().slice(0, 40)`;
  const controls = `[...document.querySelectorAll('button:not([disabled]), a[href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary')].filter((element) => element.getClientRects().length > 0)`;
  const all = await page.evaluate<string[]>(`${controls}.map(${label})`);
  await page.evaluate(`document.activeElement?.blur?.(); window.scrollTo(0, 0)`);
  const reached = new Set<string>();
  for (let press = 0; press < all.length + 5; press++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate<string | null>(
      `document.activeElement && document.activeElement !== document.body ? (${label})(document.activeElement) : null`,
    );
    if (focused !== null) reached.add(focused);
  }
  return all.filter((control) => !reached.has(control));
}

describe.skipIf(CHROMIUM === null)('the browser app is accessible', () => {
  const { mock, browser } = useModelAndBrowser();
  let workspace: { dir: string; env: NodeJS.ProcessEnv };
  let serve: Serve;
  let page: Page;

  beforeAll(async () => {
    workspace = mockedWorkspace(mock.url);
    serve = await startServe(workspace.dir, workspace.env);
    page = await browser().newPage({ viewport: { width: 1280, height: 860 } });
  });
  afterAll(async () => {
    await page?.close();
    await serve?.stop();
    if (workspace) rmSync(workspace.dir, { recursive: true, force: true });
  });

  it(
    'axe-core finds no serious or critical violation on any view, light or dark, and Tab reaches every control',
    async () => {
      // coordinator delegates to developer, who asks the user a question and writes a file (an approval).
      const delegation = { to: 'developer', message: 'Create src/health.ts exporting health()' };
      mock.on(
        { model: 'claude-test', userMessage: 'Add a health check', hasToolResult: false },
        { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify(delegation) }] },
      );
      mock.on(
        { model: 'gpt-test', userMessage: 'Create src/health.ts', hasToolResult: false },
        {
          toolCalls: [
            { id: 'call_ask', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which port should it listen on?' }) },
            {
              id: 'call_write',
              name: 'file_write',
              arguments: JSON.stringify({ path: 'health.ts', content: 'export const port = 8080;\n' }),
            },
          ],
        },
      );
      await page.goto(serve.url);
      await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
      await page.getByTestId('nav-work').click();
      await page.getByTestId('composer-text').fill('Add a health check');
      await page.getByTestId('composer-send').click();
      // The model's response is approved as a batch before its tools run: the approval comes first, then the question.
      await page.getByTestId('nav-approvals-count').waitFor();
      const found: Record<string, string[]> = {};
      const check = async (view: string, name = view): Promise<void> => {
        await page.getByTestId(`nav-${view}`).click();
        if (view === 'work') {
          await page.getByTestId('conversation-open-user__coordinator').click();
          await page.getByTestId('view-conversation').waitFor();
        } else await page.getByTestId(`view-${view}`).waitFor();
        await screenshot(page, `a11y-${name}`);
        await page.emulateMedia({ colorScheme: 'dark' });
        await screenshot(page, `a11y-${name}-dark`);
        found[`${name}-dark`] = await seriousViolations(page);
        await page.emulateMedia({ colorScheme: 'light' });
        found[name] = [
          ...(await seriousViolations(page)),
          ...(await unreachableByKeyboard(page)).map((control) => `not reachable by Tab: ${control}`),
        ];
      };
      for (const view of ['work', 'collective', 'approvals', 'claims', 'cost', 'sessions']) await check(view);
      await page.getByTestId('nav-approvals').click();
      await page.locator('[data-testid^="approval-"][data-tool]').getByRole('button').first().click();
      await page.getByTestId('nav-questions-count').waitFor();
      await check('questions');
      await check('work', 'work-question');
      // Each view light and dark (axe only: Tab order does not change with the theme).
      expect(Object.keys(found)).toHaveLength(16);
      expect(found).toEqual(Object.fromEntries(Object.keys(found).map((view) => [view, []])));
    },
    TEST_MS,
  );
});
