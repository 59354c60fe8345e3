// The provider SDKs' fetch: core's redirectSafeFetch (Node's fetch, a redirect to another origin
// sending no key) against Node's own fetch (undici) alone, both reading a streamed reply of 20
// server-sent events from a node:http server on 127.0.0.1 in this process: what the wrapper adds.
// Prints the CPU time (this process: client and server) and wall time per request, in interleaved
// rounds after a warm-up, and, in a fresh process each, what the first request costs (loading and
// starting undici: what a one-shot `legion run` pays). Build core first (`npm run build`).
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { redirectSafeFetch } from '@legion-collective/core';
import { median, ms, printJson, round } from './lib.mjs';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const ROUNDS = 5;
const event = `data: ${'x'.repeat(200)}\n\n`;
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let index = 0; index < 20; index++) response.write(event);
    response.end();
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/v1/messages`;

const implementations = { redirectSafeFetch, 'Node fetch (undici)': (input, init) => fetch(input, init) };
const cpu = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
async function request(implementation) {
  const response = await implementation(url, { method: 'POST', body: '{"model":"m"}', headers: { 'content-type': 'application/json' } });
  const reader = response.body.getReader();
  while (!(await reader.read()).done);
}

for (const implementation of Object.values(implementations)) for (let index = 0; index < 50; index++) await request(implementation);
const perRequest = {};
for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex++) {
  for (const [name, implementation] of Object.entries(implementations)) {
    const cpuStart = cpu();
    const wallStart = performance.now();
    for (let index = 0; index < REQUESTS; index++) await request(implementation);
    (perRequest[name] ??= { cpu: [], wall: [] }).cpu.push((cpu() - cpuStart) / REQUESTS);
    perRequest[name].wall.push((performance.now() - wallStart) / REQUESTS);
  }
}

// The first request in a fresh process, the server being this one: CPU of the child only.
const first = (expression) => {
  const script = `const { redirectSafeFetch } = await import('@legion-collective/core'); const start = process.cpuUsage(); const response = await (${expression})(${JSON.stringify(url)}, { method: 'POST', body: '{}' }); await response.text(); const used = process.cpuUsage(start); console.log((used.user + used.system) / 1000);`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: new URL('.', import.meta.url),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('close', (status) => (status === 0 ? resolve(Number(out)) : reject(new Error(`child exited with ${status}`))));
  });
};
const firstRequest = { redirectSafeFetch: [], 'Node fetch (undici)': [] };
for (let index = 0; index < 6; index++) {
  firstRequest.redirectSafeFetch.push(await first('redirectSafeFetch'));
  firstRequest['Node fetch (undici)'].push(await first('fetch'));
}
server.close();

console.log(
  `sdk-fetch — a streamed reply of 20 events from 127.0.0.1 (${REQUESTS} requests × ${ROUNDS} interleaved rounds; CPU is client and server, one process)`,
);
const figures = {};
for (const name of Object.keys(implementations)) {
  figures[name] = {
    cpuPerRequestMs: round(median(perRequest[name].cpu), 3),
    wallPerRequestMs: round(median(perRequest[name].wall), 3),
    firstRequestCpuMs: round(median(firstRequest[name]), 1),
  };
  console.log(
    `  ${name.padEnd(20)} per request: CPU ${ms(median(perRequest[name].cpu))}, wall ${ms(median(perRequest[name].wall))}   first request in a fresh process: CPU ${ms(median(firstRequest[name]))}`,
  );
}
printJson('sdk-fetch', figures);
