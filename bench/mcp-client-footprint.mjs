// What the MCP client costs a user of the CLI: the packages and bytes `npm install` puts in
// node_modules for it, and the time of the first MCP connection's SDK import.
//
// It packs core, server and cli (`npm pack`, as npm would publish them) into a temp dir and
// installs the tarballs there with `npm install --omit=dev` (a real install from the registry,
// so it needs the network and takes a minute), then reports:
// - production packages: every package in the install but the three of Legion's own, and how
//   many of them are there only for the MCP SDK (reachable from the rest of the tree only through
//   an @modelcontextprotocol/* package);
// - installed size of node_modules (`du -sb`);
// - the first SDK import, in fresh processes: core's `loadMcpSdk()` from the installed dist, and
//   the CLI bundle's chunks holding the client SDK (what `legion` reads on its first MCP connection;
//   not those of `legion mcp serve`'s server package).
//
// Usage: npm run build && node bench/mcp-client-footprint.mjs [repository root]
// The root defaults to this checkout; to measure another commit: `git worktree add /tmp/x <commit>
// && cd /tmp/x && npm ci && npm run build && node bench/mcp-client-footprint.mjs`.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, ms, printJson, removeDir, tempDir } from './lib.mjs';

const ROOT = resolve(process.argv[2] ?? new URL('..', import.meta.url).pathname);
const RUNS = Number(process.env.BENCH_MCP_RUNS ?? 9);
const OWN = ['@legion-collective/core', '@legion-collective/server', '@legion-collective/cli'];
const dir = tempDir('mcp-footprint');

try {
  const tarballs = OWN.map((name) => {
    const output = execFileSync('npm', ['pack', '--workspace', name, '--pack-destination', dir, '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return join(dir, JSON.parse(output)[0].filename);
  });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'footprint',
      private: true,
      dependencies: Object.fromEntries(OWN.map((name, index) => [name, `file:${tarballs[index]}`])),
    }),
  );
  execFileSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });

  // npm's own record of what it installed: path → { dependencies, optionalDependencies, peerDependencies }.
  const lock = JSON.parse(readFileSync(join(dir, 'node_modules', '.package-lock.json'), 'utf8')).packages;
  const paths = Object.keys(lock).filter((path) => path.startsWith('node_modules/') && !lock[path].link);
  const nameOf = (path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const installed = paths.filter((path) => !OWN.includes(nameOf(path)));

  // Resolves a dependency as Node does: the nearest node_modules up from the dependent.
  const resolveFrom = (from, name) => {
    for (let base = from; ;) {
      const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (lock[candidate]) return candidate;
      if (!base) return undefined;
      const cut = base.lastIndexOf('/node_modules/');
      base = cut === -1 ? '' : base.slice(0, cut);
    }
  };
  const reachable = (skip) => {
    const seen = new Set();
    const stack = OWN.map((name) => `node_modules/${name}`).filter((path) => lock[path]);
    while (stack.length > 0) {
      const path = stack.pop();
      if (seen.has(path)) continue;
      seen.add(path);
      const entry = lock[path];
      for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies })) {
        if (skip(name)) continue;
        const target = resolveFrom(path, name);
        if (target) stack.push(target);
      }
    }
    return seen;
  };
  const all = reachable(() => false);
  const withoutMcp = reachable((name) => name.startsWith('@modelcontextprotocol/'));
  const forMcp = installed.filter((path) => all.has(path) && !withoutMcp.has(path));
  const mcpPackages = installed
    .filter((path) => nameOf(path).startsWith('@modelcontextprotocol/'))
    .map((path) => `${nameOf(path)}@${lock[path].version}`);
  const du = (path) => Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);
  const bytes = du(join(dir, 'node_modules'));
  // A package's own files: its folder without the node_modules nested in it (counted as packages of their own).
  const ownBytes = (path) =>
    du(join(dir, path)) -
    (lock[`${path}/node_modules`] === undefined && !paths.some((other) => other.startsWith(`${path}/node_modules/`))
      ? 0
      : du(join(dir, path, 'node_modules')));
  const mcpBytes = forMcp.reduce((total, path) => total + ownBytes(path), 0);
  const biggest = forMcp
    .map((path) => [nameOf(path), ownBytes(path)])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5);

  // The first SDK import, each in a new process (the module cache is per process; the files are in the page cache after the first run).
  const core = join(dir, 'node_modules/@legion-collective/core/dist/tools/providers/mcp/load-mcp-sdk.js');
  const loadScript = `const { loadMcpSdk } = await import(${JSON.stringify(pathToFileURL(core).href)}); const at = performance.now(), cpu = process.cpuUsage(); await loadMcpSdk(); const used = process.cpuUsage(cpu); console.log(performance.now() - at, (used.user + used.system) / 1000);`;
  const chunks = join(dir, 'node_modules/@legion-collective/cli/dist/chunks');
  // esbuild may split the SDK's entry points over several chunks: all of them load on the first connection.
  // Chunks of the server package alone (`legion mcp serve`) are not the client's: left out.
  const sdkChunks = readdirSync(chunks)
    .filter((name) => name.endsWith('.js'))
    .filter((name) => {
      const map = readFileSync(join(chunks, `${name}.map`), 'utf8');
      if (!map.includes('node_modules/@modelcontextprotocol/')) return false;
      return (
        !map.includes('node_modules/@modelcontextprotocol/server/') ||
        map.includes('node_modules/@modelcontextprotocol/client/') ||
        map.includes('node_modules/@modelcontextprotocol/sdk/')
      );
    });
  const chunkScript = `const at = performance.now(), cpu = process.cpuUsage(); for (const file of ${JSON.stringify(sdkChunks.map((name) => join(chunks, name)))}) require(file); const used = process.cpuUsage(cpu); console.log(performance.now() - at, (used.user + used.system) / 1000);`;
  // Wall time is at the mercy of other work on the machine; CPU time (user + system) of the import much less so.
  const time = (args) => {
    const wall = [];
    const cpu = [];
    for (let run = 0; run < RUNS; run++) {
      const result = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`timing run failed: ${result.stderr}`);
      const [wallMs, cpuMs] = result.stdout.trim().split(' ').map(Number);
      wall.push(wallMs);
      cpu.push(cpuMs);
    }
    return { wallMs: median(wall), wallMinMs: Math.min(...wall), cpuMs: median(cpu) };
  };
  const show = (timing) => `${ms(timing.wallMs)} wall (fastest ${ms(timing.wallMinMs)}), ${ms(timing.cpuMs)} CPU`;
  const coreImportMs = time(['--input-type=module', '-e', loadScript]);
  const chunkMs = sdkChunks.length > 0 ? time(['-e', chunkScript]) : undefined;
  const chunkBytes = sdkChunks.reduce((total, name) => total + readFileSync(join(chunks, name)).length, 0);

  console.log(`MCP packages installed:        ${mcpPackages.join(', ')}`);
  console.log(
    `CLI production packages:       ${installed.length} (besides core, server and cli), ${forMcp.length} of them only for the MCP SDK`,
  );
  console.log(
    `installed node_modules:        ${(bytes / 1024 / 1024).toFixed(1)} MB, ${(mcpBytes / 1024 / 1024).toFixed(1)} MB of it only for the MCP SDK (largest: ${biggest.map(([name, size]) => `${name} ${(size / 1024 / 1024).toFixed(1)} MB`).join(', ')})`,
  );
  console.log(`first SDK import, core dist:   ${show(coreImportMs)} (medians of ${RUNS} fresh processes, loadMcpSdk())`);
  console.log(
    `first SDK import, CLI bundle:  ${chunkMs ? show(chunkMs) : 'n/a'} (require of its ${sdkChunks.length} chunk(s) with SDK code, ${(chunkBytes / 1024).toFixed(0)} KB)`,
  );
  printJson('mcp-client-footprint', {
    packages: installed.length,
    packagesForMcp: forMcp.length,
    installedBytes: bytes,
    mcpBytes,
    coreImportMs,
    chunkMs,
    chunkBytes,
    mcpPackages,
  });
} finally {
  removeDir(dir);
}
