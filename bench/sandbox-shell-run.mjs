// What the OS sandbox adds to a shell_run: the time of `shell_run { command: "true" }` through the
// built tool, from execute to its result, with "sandbox" off (the command is still contained in a
// PID namespace: the floor the sandbox builds on), on (no network: a network namespace of its own),
// on with the host's network, and on with an allow-list of hosts (the command starts behind the
// bridge to Legion's proxy: one more Node process per command, which the bridge costs whether or not
// the command connects). Rounds alternate between the four so that load drifts alike on each. Where the sandbox cannot work here, only "off" is measured and the bench says why.
// ROUNDS=300 node bench/sandbox-shell-run.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, p95, printJson, removeDir, round, tempDir } from './lib.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 200);
const dist = (path) => fileURLToPath(new URL(`../packages/core/dist/${path}`, import.meta.url));
const { createShellRunTool } = await import(dist('tools/builtin/shell/shell-run.js'));
const { sandboxSupport } = await import(dist('tools/child-processes/sandbox.js'));

const root = tempDir('legion-bench-sandbox-');
// A workspace as commands meet it: a .legion/ (read-only inside) and a .git with hooks and config (read-only too).
mkdirSync(join(root, '.legion'));
mkdirSync(join(root, '.git', 'hooks'), { recursive: true });
writeFileSync(join(root, '.git', 'config'), '');

const detectStarted = performance.now();
const support = sandboxSupport();
const detectMs = performance.now() - detectStarted;

const variants = {
  off: { mode: 'off', network: 'off' },
  ...(support.works
    ? {
        on: { mode: 'on', network: 'off' },
        onWithNetwork: { mode: 'on', network: 'on' },
        onWithAllowList: { mode: 'on', network: { allow: ['registry.npmjs.org', '*.github.com'] } },
      }
    : {}),
};
const tools = Object.fromEntries(
  Object.entries(variants).map(([name, settings]) => [name, createShellRunTool({ sandbox: () => settings })]),
);
const context = {
  callerId: 'bench',
  conversation: { sessionId: 'bench', conversationId: 'user__bench', initiator: 'user', responder: 'bench' },
  toolUseId: 'bench',
  frames: [],
  signal: new AbortController().signal,
  workspaceRoot: root,
  readable: () => true,
};

async function once(tool) {
  const started = performance.now();
  const result = await tool.execute({ command: 'true' }, context);
  const elapsed = performance.now() - started;
  if (result.status !== 'success') throw new Error(`shell_run failed: ${result.error}`);
  return elapsed;
}

// Warm-up: the first runs pay for module loading and the JIT.
for (const tool of Object.values(tools)) for (let round = 0; round < 10; round++) await once(tool);
const times = Object.fromEntries(Object.keys(tools).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) for (const [name, tool] of Object.entries(tools)) times[name].push(await once(tool));
removeDir(root);

const stats = (values) => ({ medianMs: round(median(values), 2), p95Ms: round(p95(values), 2) });
const figures = {
  rounds: ROUNDS,
  sandboxWorks: support.works,
  ...(support.works ? {} : { why: support.reason }),
  detectMs: round(detectMs, 2),
  off: stats(times.off),
  ...(support.works
    ? {
        on: stats(times.on),
        onWithNetwork: stats(times.onWithNetwork),
        onWithAllowList: stats(times.onWithAllowList),
        addedMedianMs: round(median(times.on) - median(times.off), 2),
        addedP95Ms: round(p95(times.on) - p95(times.off), 2),
        allowListAddedMedianMs: round(median(times.onWithAllowList) - median(times.off), 2),
        allowListAddedP95Ms: round(p95(times.onWithAllowList) - p95(times.off), 2),
      }
    : {}),
};
console.log(`sandbox cost of a shell_run (${ROUNDS} × shell_run "true", rounds alternating)`);
console.log(`  sandbox "off" (contained only): ${figures.off.medianMs} ms median, ${figures.off.p95Ms} ms p95`);
if (support.works) {
  console.log(`  sandbox "on", no network:       ${figures.on.medianMs} ms median, ${figures.on.p95Ms} ms p95`);
  console.log(`  sandbox "on", host network:     ${figures.onWithNetwork.medianMs} ms median, ${figures.onWithNetwork.p95Ms} ms p95`);
  console.log(`  sandbox "on", allow-list:       ${figures.onWithAllowList.medianMs} ms median, ${figures.onWithAllowList.p95Ms} ms p95`);
  console.log(
    `  the sandbox adds ${figures.addedMedianMs} ms median, ${figures.addedP95Ms} ms p95 (detected once in ${figures.detectMs} ms)`,
  );
  console.log(
    `  with an allow-list it adds ${figures.allowListAddedMedianMs} ms median, ${figures.allowListAddedP95Ms} ms p95 over "off" (the bridge's Node start)`,
  );
} else console.log(`  the sandbox cannot work here: ${support.reason}`);
printJson('sandbox-shell-run', figures);
