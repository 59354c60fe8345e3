import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built binary every CLI test runs, as `npx legion` and the published package do. */
export const LEGION = fileURLToPath(new URL('../dist/legion.js', import.meta.url));

export interface LegionRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `legion ARGS` to the end in `cwd`, with exactly `env` (callers decide what
 * the machine's environment may contribute), `input` on stdin (closed after it),
 * and collects what it printed.
 */
export function runLegion(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number },
): Promise<LegionRun> {
  return runNodeScript(LEGION, args, options);
}

/** Runs another Node program (an MCP client's CLI, say) the way `runLegion` runs legion. */
export function runNodeScript(
  script: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number },
): Promise<LegionRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs, killSignal: 'SIGKILL' as const } : {}),
    });
    child.stdin.end(options.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
