// Installs code-server (a real VS Code, from npm) into packages/vscode/.cache/code-server once,
// with the fixes its install needs on these machines (see docs/design/vscode-tests.md).
// Exported for scripts/test-vscode.mjs; `node scripts/code-server.mjs` installs and prints the path.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The newest code-server that installs on Node 20 (4.104+ need Node 22): VS Code 1.100.3. */
export const CODE_SERVER_VERSION = '4.100.3';
export const CACHE = fileURLToPath(new URL('../.cache/', import.meta.url));
const INSTALL = join(CACHE, `code-server-${CODE_SERVER_VERSION}`);
export const CODE_SERVER_BIN = join(INSTALL, 'node_modules', '.bin', 'code-server');

/** @vscode/ripgrep's postinstall downloads rg; it takes it from this cache when it is there. */
const RIPGREP_CACHE = join(process.env.TMPDIR || tmpdir(), 'vscode-ripgrep-cache-1.15.11');
const RIPGREP_TARBALL = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';

function which(command) {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

function works() {
  if (!existsSync(CODE_SERVER_BIN)) return false;
  return spawnSync(CODE_SERVER_BIN, ['--version'], { encoding: 'utf8', timeout: 60_000 }).stdout?.includes(CODE_SERVER_VERSION) ?? false;
}

/** The code-server binary, installed if needed; `{ skip }` says why it cannot be. */
export function ensureCodeServer(log = (line) => process.stderr.write(`${line}\n`)) {
  if (works()) return { bin: CODE_SERVER_BIN };
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return { skip: `code-server tests run on linux x64 only (this is ${process.platform} ${process.arch})` };
  if (!process.version.startsWith('v20.'))
    return { skip: `code-server ${CODE_SERVER_VERSION} installs on Node 20 only (this is ${process.version})` };
  const rg = which('rg');
  if (!rg) return { skip: 'no `rg` on PATH: install Debian’s ripgrep (apt-get install ripgrep); code-server’s ripgrep would download it' };
  if (!existsSync('/usr/include/gssapi.h') && !existsSync('/usr/include/gssapi/gssapi.h'))
    return { skip: 'no gssapi.h: install libkrb5-dev (code-server’s kerberos module compiles against it)' };
  if (!existsSync(join(RIPGREP_CACHE, RIPGREP_TARBALL))) {
    const staging = mkdtempSync(join(tmpdir(), 'legion-rg-'));
    copyFileSync(rg, join(staging, 'rg'));
    mkdirSync(RIPGREP_CACHE, { recursive: true });
    execFileSync('tar', ['czf', join(RIPGREP_CACHE, RIPGREP_TARBALL), '-C', staging, 'rg']);
    rmSync(staging, { recursive: true, force: true });
  }
  rmSync(INSTALL, { recursive: true, force: true });
  mkdirSync(INSTALL, { recursive: true });
  writeFileSync(join(INSTALL, 'package.json'), '{ "private": true }\n');
  log(`installing code-server ${CODE_SERVER_VERSION} into ${INSTALL} (once; about a minute)…`);
  const started = Date.now();
  const install = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `code-server@${CODE_SERVER_VERSION}`],
    {
      cwd: INSTALL,
      encoding: 'utf8',
      // Its postinstall refuses root without unsafe-perm; node-pty's runs `npx node-gyp`, which a `yes=false` setting blocks.
      env: { ...process.env, npm_config_unsafe_perm: 'true', npm_config_yes: 'true', XDG_CONFIG_HOME: join(INSTALL, '.xdg') },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (install.status !== 0 || !works()) {
    rmSync(INSTALL, { recursive: true, force: true });
    return {
      skip: `code-server could not be installed (npm exited ${install.status}): ${(install.stderr || '').trim().split('\n').slice(-5).join(' | ')}`,
    };
  }
  log(`installed code-server in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { bin: CODE_SERVER_BIN };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = ensureCodeServer();
  if (result.skip) {
    console.error(`code-server: ${result.skip}`);
    process.exit(1);
  }
  console.log(result.bin);
}
