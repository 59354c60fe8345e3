import { type ApprovalRule } from '@legion-collective/core';
import { styleFor, type Style } from '../render/style.js';
import { openLegion, resolveWorkspace } from '../workspace.js';
import { stdout } from '../render/terminal-text.js';

interface RuleOptions {
  workspace?: string;
  json?: boolean;
}

/** `legion approvals rules`: every "approve always" rule, oldest first. */
export async function rulesCommand(options: RuleOptions): Promise<number> {
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  try {
    // A broken rule file throws here, naming the file, the field and the fix: a listing that skipped it would hide it.
    const rules = legion.approvalRules.list();
    if (options.json) {
      stdout.json({ rules });
      return 0;
    }
    if (rules.length === 0) {
      stdout.write('No approval rules. Make one with: legion approve ID --rule [--pattern GLOB]\n');
      return 0;
    }
    const style = styleFor(process.stdout);
    for (const rule of rules) stdout.write(`${describeRule(rule, style)}\n`);
    stdout.write(
      style.dim(`\nRules live in ${legion.paths.display(legion.paths.approvalRulesDir)}/. Revoke one with: legion approvals rules rm ID\n`),
    );
    return 0;
  } finally {
    await legion.close();
  }
}

/** `legion approvals rules rm ID…`: revokes rules; from then on those calls ask again. */
export async function removeRulesCommand(ids: string[], options: RuleOptions): Promise<number> {
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  try {
    const removed = ids.map((id) => ({ id, rule: legion.approvalRules.remove(id) }));
    if (options.json) stdout.json({ removed: removed.map(({ id }) => id) });
    else for (const { id, rule } of removed) stdout.write(`Removed ${rule ? describeRule(rule, styleFor(process.stdout)) : id}\n`);
    return 0;
  } finally {
    await legion.close();
  }
}

/** One rule on one line: id, who → which tool, pattern, when and by whom. */
export function describeRule(rule: ApprovalRule, style: Style): string {
  const pattern = rule.pattern === undefined ? style.dim('(every call)') : rule.pattern;
  const by = `${rule.createdBy}${rule.medium ? ` on ${rule.medium}` : ''}`;
  return `${rule.id}  ${rule.participant} → ${rule.tool}  ${pattern}  ${style.dim(`${rule.createdAt.slice(0, 16).replace('T', ' ')} by ${by}${rule.reason ? `: ${rule.reason}` : ''}`)}`;
}
