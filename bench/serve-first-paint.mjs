// Time from starting `legion serve` to the app's first paint in a browser.
//
// Chromium is already running (its start-up is the browser's, not Legion's). For each run: spawn
// the built `legion serve --port 0` on a fresh workspace; when it prints its URL, a new tab opens
// it (GET /?token → cookie + redirect → index → the app's script, which renders and connects).
// Figures, from the spawn: URL printed; first contentful paint (the shell is empty until the app
// renders, so this is the app's first paint); the app live (roster loaded, event stream open).
import { loadavg } from 'node:os';
import { launchChromium, prepareWorkspace, startServe } from './serve-lib.mjs';
import { median, ms, p95, printJson, removeDir, round, tempDir, verdict } from './lib.mjs';

const RUNS = Number(process.env.BENCH_SERVE_RUNS ?? 7);
const browser = await launchChromium();
// Notes, in the page, the moment the app is live: event stream open and the roster drawn.
const WATCH_LIVE = `
  new MutationObserver((_, observer) => {
    if (document.querySelector('[data-testid="connection"][data-state="open"]') && document.querySelector('[data-testid^="graph-node-"]')) {
      window.liveAt = Date.now();
      observer.disconnect();
    }
  }).observe(document, { subtree: true, childList: true, attributes: true });
`;
const printed = [];
const painted = [];
const live = [];
/** From the tab opening the URL (navigation start) to the first paint: the browser's share, issue 30's ≤ 400 ms. */
const fromNavigation = [];
for (let run = 0; run < RUNS; run += 1) {
  const dir = tempDir('serve-paint');
  const env = prepareWorkspace(dir, null);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(WATCH_LIVE);
  const serve = await startServe(dir, env);
  // Wall clocks: the page reports epoch times; this process converts its spawn time to one.
  const spawnedEpoch = performance.timeOrigin + serve.spawnedAt;
  await page.goto(serve.url);
  await page.waitForFunction(() => window.liveAt !== undefined);
  const liveEpoch = await page.evaluate(() => window.liveAt);
  const paintEpoch = await page.evaluate(() => {
    const paint = performance.getEntriesByType('paint').find((entry) => entry.name === 'first-contentful-paint');
    return paint ? performance.timeOrigin + paint.startTime : NaN;
  });
  fromNavigation.push(
    await page.evaluate(
      () => performance.getEntriesByType('paint').find((entry) => entry.name === 'first-contentful-paint')?.startTime ?? NaN,
    ),
  );
  printed.push(serve.printedAt - serve.spawnedAt);
  painted.push(paintEpoch - spawnedEpoch);
  live.push(liveEpoch - spawnedEpoch);
  await context.close();
  await serve.stop();
  removeDir(dir);
}
await browser.close();

console.log(`legion serve → first paint (${RUNS} runs, Chromium already running, fresh workspace each)`);
console.log(`  URL printed:            median ${ms(median(printed))}  p95 ${ms(p95(printed))}`);
console.log(`  first contentful paint: median ${ms(median(painted))}  p95 ${ms(p95(painted))}`);
console.log(
  `  URL opened → first paint: median ${ms(median(fromNavigation))}  p95 ${ms(p95(fromNavigation))}  ${verdict(p95(fromNavigation), 400)}`,
);
console.log(`  app live (roster + SSE): median ${ms(median(live))}  p95 ${ms(p95(live))}`);
console.log(
  `  (machine load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')})`,
);
printJson('serve-first-paint', {
  runs: RUNS,
  printedMedianMs: round(median(printed), 1),
  firstPaintMedianMs: round(median(painted), 1),
  firstPaintP95Ms: round(p95(painted), 1),
  liveMedianMs: round(median(live), 1),
  navigationToPaintMedianMs: round(median(fromNavigation), 1),
  navigationToPaintP95Ms: round(p95(fromNavigation), 1),
});
