import { runDoctorChecks } from '../doctor/doctor-checks.js';
import { buildReport, type DoctorCheck } from '../doctor/doctor-report.js';
import { styleFor } from '../render/style.js';
import { stdout, stderr } from '../render/terminal-text.js';

/**
 * `legion doctor`: verifies the workspace without spending a token. Each check
 * is printed on stderr as it completes (✔ / ✘ with the fix / – skipped);
 * `--json` prints the whole report on stdout. Exit 1 when any check failed.
 */
export async function doctorCommand(options: { workspace?: string | undefined; json?: boolean; timeout?: string }): Promise<number> {
  const style = styleFor(process.stderr);
  const mcpTimeoutMs = options.timeout === undefined ? 15_000 : Number(options.timeout);
  if (!Number.isInteger(mcpTimeoutMs) || mcpTimeoutMs <= 0)
    throw new Error(`--timeout takes milliseconds, a whole number above 0; got "${options.timeout}".`);
  const print = (check: DoctorCheck): void => {
    if (check.status === 'passed') {
      stderr.write(`${style.green('✔')} ${check.name}${check.detail ? style.dim(` — ${check.detail}`) : ''}\n`);
      if (check.warning) stderr.write(`    ${style.yellow('warning:')} ${check.warning}\n`);
    } else if (check.status === 'skipped') stderr.write(`${style.dim(`– ${check.name} — skipped: ${check.detail ?? ''}`)}\n`);
    else
      stderr.write(
        `${style.red('✘')} ${check.name} — ${check.error ?? 'failed'}\n${check.fix ? `    ${style.yellow('fix:')} ${check.fix}\n` : ''}`,
      );
  };
  const { root, checks } = await runDoctorChecks({ workspace: options.workspace, env: process.env, mcpTimeoutMs, onCheck: print });
  const report = buildReport(root, checks);
  const { passed, failed, skipped } = report.summary;
  stderr.write(
    `\n${failed === 0 ? style.green('All good') : style.red(`${failed} problem${failed === 1 ? '' : 's'} found`)} — checks passed ${passed}, failed ${failed}, skipped ${skipped}\n`,
  );
  if (options.json) stdout.json(report, 2);
  return report.success ? 0 : 1;
}
