import { spawnSync } from 'node:child_process';

/** Attempts at starting a terminal: tmux's server can die while it starts on a loaded machine. */
const NEW_SESSION_ATTEMPTS = 3;

/**
 * Runs tmux commands on a private socket with a private config, outside any
 * tmux the tests themselves run in. `new-session` is tried again when tmux
 * says its server went away while starting ("server exited unexpectedly",
 * seen once in ~1,400 tests on a loaded 2-core machine): that is the harness
 * failing to open a terminal, before Legion runs at all. Every other failure
 * throws at once with tmux's own message.
 */
export function tmuxOn(socket: string, config: string, cwd: string): (...args: string[]) => string {
  const env = { ...process.env };
  delete env.TMUX;
  const run = (args: string[]) => spawnSync('tmux', ['-S', socket, '-f', config, ...args], { cwd, env, encoding: 'utf8' });
  return (...args: string[]): string => {
    let result = run(args);
    for (let attempt = 1; attempt < NEW_SESSION_ATTEMPTS && args[0] === 'new-session' && result.status !== 0 && /server exited unexpectedly|lost server/.test(result.stderr); attempt++) {
      run(['kill-server']);
      result = run(args);
    }
    if (result.status !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr}`);
    return result.stdout;
  };
}
