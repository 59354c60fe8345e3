// `legion mcp serve` over stdio, driven by the MCP SDK's Client as an MCP client drives it: the time
// from spawning the server to the answer of `tools/list` (what a client waits for before it can show
// Legion's tools), and the round trip of a `tools/call` that reads the workspace (list_sessions), in
// a fresh workspace made by `legion init`. Each round is a new process.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { median, min, ms, printJson, removeDir, round, tempDir } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LEGION = process.env.BENCH_LEGION ?? join(ROOT, 'packages', 'cli', 'dist', 'legion.js');
const RUNS = Number(process.env.BENCH_MCP_RUNS ?? 10);

const workspace = tempDir('mcp-serve');
const env = { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(workspace, '.xdg'), XDG_CACHE_HOME: join(workspace, '.cache') };
const init = spawnSync(process.execPath, [LEGION, 'init'], { cwd: workspace, env, encoding: 'utf8' });
if (init.status !== 0) throw new Error(`legion init failed: ${init.stderr}`);

const ready = [];
const calls = [];
try {
  // One warm-up round fills the compile cache, as a user's first start does.
  for (let round = 0; round <= RUNS; round++) {
    const started = performance.now();
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [LEGION, 'mcp', 'serve'], cwd: workspace, env, stderr: 'ignore' }),
    );
    const { tools } = await client.listTools();
    const listed = performance.now();
    if (!tools.some((tool) => tool.name === 'ask_coordinator')) throw new Error('ask_coordinator is missing from tools/list');
    await client.callTool({ name: 'list_sessions', arguments: {} });
    const called = performance.now();
    await client.close();
    if (round === 0) continue;
    ready.push(listed - started);
    calls.push(called - listed);
  }
} finally {
  removeDir(workspace);
}

console.log(`mcp-serve — legion mcp serve over stdio, ${RUNS} rounds after a warm-up, a new process each`);
console.log(`  spawn → tools/list answered   median ${ms(median(ready))}   min ${ms(min(ready))}`);
console.log(`  tools/call list_sessions      median ${ms(median(calls))}   min ${ms(min(calls))}`);
printJson('mcp-serve', {
  readyMedianMs: round(median(ready), 1),
  readyMinMs: round(min(ready), 1),
  callMedianMs: round(median(calls), 1),
  callMinMs: round(min(calls), 1),
});
