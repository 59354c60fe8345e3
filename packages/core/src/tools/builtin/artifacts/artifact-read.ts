import { z } from 'zod';
import { ARTIFACT_READ_TOOL_NAME, countTextTokens, loadTokenCounter, type TokenCounter } from '../../../model/index.js';
import { errorMessage, LegionError } from '../../../kernel/index.js';
import { defineTool, type Tool } from '../../tool.js';

const DEFAULT_LINES = 100;
const MAX_LINES = 2000;
const DEFAULT_MATCHES = 50;
/** Without the agent's threshold (a call outside a turn): a budget every profile's threshold is above but the small one's. */
const DEFAULT_BUDGET_TOKENS = 4_000;
/** Share of the threshold a page may fill: the rest is headroom for the header and footer, so a page is never evicted in turn. */
const BUDGET_SHARE = 0.7;
/** Matched lines are shown around the match only. */
const MAX_SHOWN_LINE = 240;

/**
 * Reads back an artifact of this session (a large tool result the context
 * evicted): a page of numbered lines, or the lines matching a regular
 * expression with context. Every page stays under the agent's eviction
 * threshold, so reading never evicts again.
 */
export function createArtifactReadTool(): Tool {
  return defineTool({
    name: ARTIFACT_READ_TOOL_NAME,
    description:
      'Read an artifact of this session: a large tool result that was replaced in your context by a preview ("[Evicted to artifact …]"). ' +
      `Returns numbered lines from offset (1-based, default 1), at most limit (default ${DEFAULT_LINES}) and as many as fit in your context; the footer says where to read on. ` +
      'With grep (a regular expression, RE2 syntax: no backreferences or lookaround), returns the matching lines with context lines around them, searching from offset.',
    input: () =>
      z.object({
        name: z.string().min(1).describe('The artifact name, as the evicted result gives it (e.g. "tool-toolu_01.txt").'),
        offset: z.number().int().positive().optional().describe('First line to read or search from (1-based, default 1).'),
        limit: z.number().int().positive().max(MAX_LINES).optional().describe(`How many lines to read (default ${DEFAULT_LINES}).`),
        grep: z.string().min(1).optional().describe('Return only lines matching this regular expression (RE2 syntax).'),
        ignore_case: z.boolean().optional().describe('grep without regard to case.'),
        context: z.number().int().nonnegative().max(20).optional().describe('Lines shown before and after each match (default 2).'),
        max_matches: z
          .number()
          .int()
          .positive()
          .max(500)
          .optional()
          .describe(`Stop after this many matching lines (default ${DEFAULT_MATCHES}).`),
      }),
    concurrent: true,
    effect: 'read',
    async execute(input, context) {
      let content: string | undefined;
      try {
        content = await context.session.artifacts.getText(input.name);
      } catch (error) {
        if (error instanceof LegionError)
          return {
            status: 'error',
            error: `${error.message} Artifact names come from an evicted result's first line ("[Evicted to artifact …]").`,
          };
        return { status: 'error', error: `Could not read artifact "${input.name}": ${errorMessage(error)}` };
      }
      if (content === undefined) {
        const names = (await context.session.artifacts.list()).map((artifact) => artifact.name);
        const known =
          names.length === 0
            ? 'This session has no artifacts.'
            : `This session's artifacts: ${names.slice(0, 20).join(', ')}${names.length > 20 ? `, … (${names.length} in all)` : ''}.`;
        return {
          status: 'error',
          error: `No artifact "${input.name}" in this session. ${known} Use the exact name an evicted result's first line gives.`,
        };
      }
      const lines = content.split('\n');
      if (lines.at(-1) === '') lines.pop();
      const first = input.offset ?? 1;
      if (first > Math.max(lines.length, 1))
        return { status: 'error', error: `Artifact "${input.name}" has ${lines.length} lines; offset ${first} is past the end.` };
      const budget = Math.floor((context.resultTokenBudget ?? DEFAULT_BUDGET_TOKENS) * BUDGET_SHARE);
      const count = await loadTokenCounter();
      const header = `${input.name} (${lines.length} lines, ${Buffer.byteLength(content, 'utf8')} bytes)`;
      if (input.grep === undefined)
        return { status: 'success', data: readPage(lines, first, input.limit ?? DEFAULT_LINES, budget, count, header) };
      const { RE2JS } = await import('re2js');
      let regex: InstanceType<typeof RE2JS>;
      try {
        regex = RE2JS.compile(input.grep, input.ignore_case ? RE2JS.CASE_INSENSITIVE : 0);
      } catch (error) {
        return {
          status: 'error',
          error: `Invalid regular expression /${input.grep}/: ${(error as Error).message}. Patterns use RE2 syntax: no backreferences (\\1) or lookaround ((?=…), (?<!…)).`,
        };
      }
      const around = input.context ?? 2;
      const matchAt = (line: string): number => {
        const matcher = regex.matcher(line);
        return matcher.find() ? matcher.start() : -1;
      };
      const data = grepLines(lines, first, matchAt, {
        around,
        maxMatches: input.max_matches ?? DEFAULT_MATCHES,
        budget,
        count,
        header,
        pattern: input.grep,
      });
      return { status: 'success', data };
    },
  });
}

function numbered(index: number, text: string, separator = ' '): string {
  return `${String(index + 1).padStart(6)}${separator} ${text}`;
}

function readPage(lines: string[], first: number, limit: number, budget: number, count: TokenCounter, header: string): string {
  const shown: string[] = [];
  let used = countTextTokens(count, header) + 30;
  let index = first - 1;
  let cutLine = '';
  for (; index < Math.min(lines.length, first - 1 + limit); index++) {
    const line = numbered(index, lines[index]!);
    const cost = countTextTokens(count, line, budget) + 1;
    if (used + cost > budget) {
      // A line too long for any page: shown cut, so that reading never stalls on it.
      if (shown.length === 0) {
        let keep = Math.max(1, (budget - used) * 3);
        while (keep > 1 && countTextTokens(count, line.slice(0, keep), budget) > budget - used) keep = Math.floor(keep * 0.8);
        shown.push(`${line.slice(0, keep)}… [${line.length - keep} more characters of line ${index + 1}; grep finds text inside it]`);
        cutLine = ' (that line is cut)';
        index++;
      }
      break;
    }
    shown.push(line);
    used += cost;
  }
  const last = index;
  const more =
    last < lines.length
      ? `\n(lines ${first}-${last} of ${lines.length}${cutLine}; read on with offset ${last + 1})`
      : `\n(lines ${first}-${last} of ${lines.length}: the end)`;
  return `${header}\n${shown.join('\n')}${more}`;
}

function grepLines(
  lines: string[],
  first: number,
  matchAt: (line: string) => number,
  options: { around: number; maxMatches: number; budget: number; count: TokenCounter; header: string; pattern: string },
): string {
  const { around, maxMatches, budget, count } = options;
  const shown: string[] = [];
  let used = countTextTokens(count, options.header) + 40;
  let found = 0;
  let lastShown = -1;
  let stoppedAt: number | undefined;
  for (let index = first - 1; index < lines.length; index++) {
    if (matchAt(lines[index]!) < 0) continue;
    if (found >= maxMatches) {
      stoppedAt = index;
      break;
    }
    const from = Math.max(index - around, lastShown + 1, first - 1);
    const to = Math.min(lines.length - 1, index + around);
    const block = [];
    if (lastShown >= 0 && from > lastShown + 1) block.push('--');
    for (let line = from; line <= to; line++) {
      const at = line >= index ? matchAt(lines[line]!) : -1;
      block.push(numbered(line, excerpt(lines[line]!, Math.max(0, at)), at >= 0 ? ':' : '-'));
    }
    const text = block.join('\n');
    const cost = countTextTokens(count, text, budget) + 1;
    if (used + cost > budget) {
      stoppedAt = index;
      break;
    }
    shown.push(text);
    used += cost;
    found++;
    lastShown = to;
    // Context lines that matched count as found too, and are not searched again.
    for (let line = index + 1; line <= to; line++) if (matchAt(lines[line]!) >= 0) found++;
    index = Math.max(index, to);
  }
  if (found === 0 && stoppedAt === undefined) return `${options.header}\nNo line from ${first} on matches /${options.pattern}/.`;
  const footer =
    stoppedAt === undefined
      ? `(${found} matching line${found === 1 ? '' : 's'} from line ${first} to the end)`
      : `(${found} matching line${found === 1 ? '' : 's'} shown, stopped at line ${stoppedAt + 1} to stay within your context; grep on with offset ${stoppedAt + 1})`;
  return `${options.header}\n${shown.join('\n')}\n${footer}`;
}

/** A long line around its match. */
function excerpt(line: string, matchIndex: number): string {
  if (line.length <= MAX_SHOWN_LINE) return line;
  const start = Math.max(0, Math.min(matchIndex - MAX_SHOWN_LINE / 4, line.length - MAX_SHOWN_LINE));
  return `${start > 0 ? `[${start} characters]…` : ''}${line.slice(start, start + MAX_SHOWN_LINE)}${start + MAX_SHOWN_LINE < line.length ? `…[${line.length - start - MAX_SHOWN_LINE} characters]` : ''}`;
}
