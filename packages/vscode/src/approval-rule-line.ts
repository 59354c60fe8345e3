import { visibleText } from './visible-text.js';

/** What the chat says when an "Approve always" made a rule: what it allows, and how to see and revoke it. */
export function describeSavedRule(rule: { ruleId: string; requester: string; tool: string; pattern?: string | undefined }): string {
  const scope = rule.pattern === undefined ? 'any call' : code(rule.pattern);
  return `Saved rule ${code(rule.ruleId)}: **${rule.requester}** may run ${code(rule.tool)} on ${scope} without asking, in every session. \`legion approvals rules\` lists the rules; ${code(`legion approvals rules rm ${rule.ruleId}`)} removes this one.`;
}

/** A code span that holds any text the model chose (a path with backticks stays one span; what is hidden made visible). */
function code(chosen: string): string {
  const text = visibleText(chosen);
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  return longest === 0 ? `${fence}${text}${fence}` : `${fence} ${text} ${fence}`;
}
