import { initWorkspace } from '@legion-collective/core';
import { checkModelAccess } from '@legion-collective/core/management';
import { confirm } from '../confirm.js';
import { stdout } from '../render/terminal-text.js';
import { readRoster } from '../roster.js';
import { readSecret } from '../secret-input.js';

export async function initCommand(dir: string): Promise<number> {
  const result = initWorkspace(dir);
  const out = stdout;
  const style = out.style;
  out.write(`${style.bold('Legion workspace')} in ${result.root}\n`);
  for (const path of result.created) out.write(`  ${style.green('created')} ${path}\n`);
  for (const path of result.kept) out.write(`  ${style.dim('kept   ')} ${path} ${style.dim('(already there, left unchanged)')}\n`);
  out.write(`\nThe team: you (user), coordinator (entry agent), developer, reviewer.\n`);
  out.write(`Edit them in .legion/collective/participants/, then:\n  legion run "What can this team do?"\n`);
  await offerKey(result.root);
  return 0;
}

/**
 * When the default model's provider has no key (neither its variable nor the global config), says
 * how to set one, and on a terminal offers to set it now. A script (no terminal) is never asked.
 */
async function offerKey(root: string): Promise<void> {
  const { config } = readRoster(root);
  const access = checkModelAccess(config.defaultModel, config.providers, process.env);
  if (access.ok || access.code !== 'provider_no_key') return;
  const { provider } = config.defaultModel;
  const style = stdout.style;
  stdout.write(`\n${style.yellow(`No key for ${provider} was found`)} (the agents use ${provider}/${config.defaultModel.model}).\n`);
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    stdout.write(`Set one with: legion auth set ${provider}   (or see legion models for others)\n`);
    return;
  }
  if (!(await confirm(`Set the ${provider} key now? It is kept in your global config, not in this workspace.`, { defaultYes: true }))) {
    stdout.write(`Later: legion auth set ${provider}\n`);
    return;
  }
  const key = await readSecret(`API key for ${provider} (not shown): `);
  if (key === null || key === '') {
    stdout.write(`Nothing saved. Later: legion auth set ${provider}\n`);
    return;
  }
  const { storeKey } = await import('./auth.js');
  storeKey(provider, key);
}
