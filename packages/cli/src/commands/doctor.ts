import { findWorkspaceRoot } from '@legion-collective/core';
import { checkModelAccess } from '@legion-collective/core/management';
import { resolve } from 'node:path';
import { runDoctorChecks } from '../doctor/doctor-checks.js';
import { endpointChecks } from '../doctor/model-checks.js';
import { readRoster } from '../roster.js';
import { buildReport, type DoctorCheck } from '../doctor/doctor-report.js';
import { styleFor } from '../render/style.js';
import { stdout, stderr } from '../render/terminal-text.js';

/**
 * `legion doctor`: verifies the workspace without spending a token; with `--probe` it also contacts each
 * agent's endpoint (`probeEndpoint`), else it says it did not. Each check
 * is printed on stderr as it completes (✔ / ✘ with the fix / – skipped);
 * `--json` prints the whole report on stdout. Exit 1 when any check failed.
 */
export async function doctorCommand(options: {
  workspace?: string | undefined;
  json?: boolean;
  timeout?: string;
  probe?: boolean;
}): Promise<number> {
  const style = styleFor(process.stderr);
  const print = printer(style);
  const mcpTimeoutMs = options.timeout === undefined ? 15_000 : Number(options.timeout);
  if (!Number.isInteger(mcpTimeoutMs) || mcpTimeoutMs <= 0)
    throw new Error(`--timeout takes milliseconds, a whole number above 0; got "${options.timeout}".`);
  const { root, checks } = await runDoctorChecks({
    workspace: options.workspace,
    env: process.env,
    mcpTimeoutMs,
    probe: options.probe ? { timeoutMs: mcpTimeoutMs } : undefined,
    onCheck: print,
  });
  const report = buildReport(root, checks);
  const { passed, failed, skipped } = report.summary;
  stderr.write(
    `\n${failed === 0 ? style.green('All good') : style.red(`${failed} problem${failed === 1 ? '' : 's'} found`)} — checks passed ${passed}, failed ${failed}, skipped ${skipped}\n`,
  );
  if (options.json) stdout.json(report, 2);
  return report.success ? 0 : 1;
}

/** Each check as a line on stderr: ✔ (with a warning under it), – skipped, ✘ with the fix under it. */
function printer(style: ReturnType<typeof styleFor>): (check: DoctorCheck) => void {
  return (check) => {
    if (check.status === 'passed') {
      stderr.write(`${style.green('✔')} ${check.name}${check.detail ? style.dim(` — ${check.detail}`) : ''}\n`);
      if (check.warning) stderr.write(`    ${style.yellow('warning:')} ${check.warning}\n`);
    } else if (check.status === 'skipped') stderr.write(`${style.dim(`– ${check.name} — skipped: ${check.detail ?? ''}`)}\n`);
    else
      stderr.write(
        `${style.red('✘')} ${check.name} — ${check.error ?? 'failed'}\n${check.fix ? `    ${style.yellow('fix:')} ${check.fix}\n` : ''}`,
      );
  };
}

/**
 * `legion models test [agent]`: `legion doctor --probe`'s endpoint checks alone, for every active
 * agent or the one named. A model that cannot be called as configured (no key) is said with its fix.
 */
export async function modelsTestCommand(
  agent: string | undefined,
  options: { workspace?: string | undefined; timeout?: string },
): Promise<number> {
  const timeoutMs = options.timeout === undefined ? 15_000 : Number(options.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new Error(`--timeout takes milliseconds, a whole number above 0; got "${options.timeout}".`);
  const root = findWorkspaceRoot(resolve(options.workspace ?? process.cwd()));
  if (!root) throw new Error('No .legion/ workspace here or above it. Fix: run "legion init" in your project.');
  const roster = readRoster(root, process.env);
  const agents = roster.participants.filter((participant) => participant.type === 'agent' && participant.status === 'active');
  if (agent !== undefined && !agents.some((participant) => participant.id === agent))
    throw new Error(`No active agent "${agent}". Fix: name one of ${agents.map((participant) => participant.id).join(', ') || '(none)'}.`);
  const print = printer(styleFor(process.stderr));
  let failed = 0;
  for (const participant of agents) {
    if (agent !== undefined && participant.id !== agent) continue;
    const model = (participant.type === 'agent' ? participant.model : undefined) ?? roster.config.defaultModel;
    const access = checkModelAccess(model, roster.config.providers, process.env);
    if (!access.ok) {
      failed++;
      print({
        name: `agent ${participant.id}: ${model.provider}/${model.model}`,
        category: 'providers',
        status: 'failed',
        error: access.problem,
        fix: access.fix,
      });
    }
  }
  for (const check of await endpointChecks(roster, process.env, timeoutMs, agent)) {
    if (check.status === 'failed') failed++;
    print(check);
  }
  return failed === 0 ? 0 : 1;
}
