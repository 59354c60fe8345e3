import { initWorkspace } from '@legion-collective/core';
import { stdout } from '../render/terminal-text.js';

export async function initCommand(dir: string): Promise<number> {
  const result = initWorkspace(dir);
  const out = stdout;
  const style = out.style;
  out.write(`${style.bold('Legion workspace')} in ${result.root}\n`);
  for (const path of result.created) out.write(`  ${style.green('created')} ${path}\n`);
  for (const path of result.kept) out.write(`  ${style.dim('kept   ')} ${path} ${style.dim('(already there, left unchanged)')}\n`);
  out.write(`\nThe team: you (user), coordinator (entry agent), developer, reviewer.\n`);
  out.write(`Edit them in .legion/collective/participants/, then:\n  legion run "What can this team do?"\n`);
  return 0;
}
