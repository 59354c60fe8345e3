import { groupedNumber } from '@legion-collective/core';
import type { ContextReport } from '@legion-collective/core/management';
import type { Style } from '../render/style.js';

const share = (part: number, whole: number): string => `${((part / whole) * 100).toFixed(part / whole < 0.1 ? 1 : 0)}%`;

/** `/context`: what the agent's next request carries, against its window and thresholds. */
export function contextLines(report: ContextReport, style: Style): string[] {
  const { settings } = report;
  const source =
    report.windowSource === 'default'
      ? style.yellow(' (unknown model: a default)')
      : report.windowSource === 'config'
        ? style.dim(' (from the config)')
        : report.windowSource === 'endpoint'
          ? style.dim(' (as its endpoint reported)')
          : report.windowSource === 'catalogue'
            ? style.dim(' (from the bundled catalogue)')
            : '';
  const lines = [
    `  ${style.bold(report.agentId)}  ${report.model}  profile ${settings.profile}  window ${groupedNumber(settings.window)}${source}  reserve ${groupedNumber(settings.outputReserve)}`,
    style.dim(
      `  thresholds: evict a tool result above ${groupedNumber(settings.evictAboveTokens)} · prune at ${groupedNumber(settings.pruneAtTokens)} · summarize at ${groupedNumber(settings.summarizeAtTokens)} · keep the newest ${groupedNumber(settings.protectRecentTokens)}`,
    ),
    `  system prompt     ${groupedNumber(report.system).padStart(9)} tokens`,
    `  tool definitions  ${groupedNumber(report.tools.tokens).padStart(9)} tokens  ${share(report.tools.tokens, settings.window)} of the window  ${style.dim(`(${report.tools.count} tools; largest: ${report.tools.largest.map((tool) => `${tool.name} ${groupedNumber(tool.tokens)}`).join(', ') || 'none'})`)}`,
  ];
  if (report.messages) {
    const { messages } = report;
    const reported =
      messages.fromProvider > 0
        ? `${groupedNumber(messages.fromProvider)} as the provider reported, ${groupedNumber(messages.estimated)} counted since`
        : 'counted';
    lines.push(
      `  messages          ${groupedNumber(messages.tokens).padStart(9)} tokens  ${style.dim(`(${messages.count} in ${messages.conversationId}; ${reported})`)}`,
    );
  }
  lines.push(
    `  total             ${groupedNumber(report.total).padStart(9)} tokens  ${share(report.total, report.limit)} of the ${groupedNumber(report.limit)} a request may hold`,
  );
  if (report.windowNote) lines.push(style.dim(`  ${report.windowNote}`));
  for (const warning of report.warnings) lines.push(style.yellow(`  ⚠ ${warning}`));
  return lines;
}
