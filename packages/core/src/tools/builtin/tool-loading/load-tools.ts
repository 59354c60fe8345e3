import picomatch from 'picomatch';
import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import { checkAgentStateKey } from '../agent-session-file.js';
import { addLoadedTools } from './loaded-tools.js';

export const LOAD_TOOLS_TOOL_NAME = 'load_tools';

/** A tool the caller may load, with the family it loads with. */
export interface LoadableTool {
  tool: Tool;
  family: string;
}

export interface LoadToolsOptions {
  /**
   * The tools this agent may load: those its `tools` permission lets through
   * and no policy denies outright. Nothing else can be loaded by any name.
   */
  loadable(agentId: string): readonly LoadableTool[];
}

export const LOAD_TOOLS_DESCRIPTION =
  'Load tool families or single tools into your tool list for the rest of this conversation; their full schemas come with your next step. ' +
  'Give family names, tool names or globs of them (mcp__github__*, file_*). A tool not loaded yet can still be called by its name.';

/**
 * `load_tools`: under `toolSchemas: 'compact'` (and for lazy MCP servers) the
 * model is sent only some tools and a catalogue of the rest (in this tool's
 * description, written per request by the runtime); this loads the ones it
 * asks for. What it loaded is kept per conversation in the session.
 */
export function createLoadToolsTool(options: LoadToolsOptions): Tool {
  return defineTool({
    name: LOAD_TOOLS_TOOL_NAME,
    description: LOAD_TOOLS_DESCRIPTION,
    summary: 'Load tool families or tools by name.',
    input: () =>
      z.object({
        names: z
          .array(z.string().min(1).max(128))
          .min(1)
          .max(64)
          .describe(
            'Family names (e.g. "files", "mcp__github"), tool names (e.g. "file_read") or globs of them (e.g. "mcp__github__*", "file_*").',
          ),
      }),
    // Changes only which schemas the caller's own model is sent: runs like a read.
    effect: 'read',
    async execute(input, context) {
      const problem = checkAgentStateKey(context);
      if (problem) return { status: 'error', error: problem };
      const loadable = options.loadable(context.callerId);
      const families = new Map<string, string[]>();
      for (const { tool, family } of loadable) families.set(family, [...(families.get(family) ?? []), tool.name]);
      const names = new Set(loadable.map(({ tool }) => tool.name));
      const found: string[] = [];
      const unknown: string[] = [];
      const unmatched: string[] = [];
      const expanded: string[] = [];
      for (const name of new Set(input.names)) {
        if (families.has(name) || names.has(name)) found.push(name);
        else if (isGlob(name)) {
          // A glob loads what it matches now (families and tools you may use: nothing denied or outside your permission).
          const matches = matchingNames(name, [...families.keys(), ...names]);
          if (matches.length === 0) unmatched.push(name);
          else {
            found.push(...matches.filter((match) => !found.includes(match)));
            expanded.push(`${name} → ${matches.join(', ')}`);
          }
        } else unknown.push(name);
      }
      const catalogue = [...families.keys()].sort().join(', ');
      const refused = [
        unknown.length > 0
          ? `${unknown.map((name) => `"${name}"`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a family or tool you may use`
          : undefined,
        unmatched.length > 0
          ? `${unmatched.map((name) => `"${name}"`).join(', ')} ${unmatched.length === 1 ? 'matches' : 'match'} no family or tool you may use`
          : undefined,
      ].filter((part) => part !== undefined);
      if (found.length === 0) {
        const hint =
          unmatched.length > 0
            ? ` Give a family, a tool name, or a glob of them (e.g. "${[...families.keys()].sort()[0] ?? 'files'}*").`
            : '';
        return { status: 'error', error: `Nothing to load: ${refused.join('; ')}. Families: ${catalogue || '(none)'}.${hint}` };
      }
      await addLoadedTools(context.session.agentState, context.callerId, context.conversation.conversationId, found);
      const loaded = found.map((name) => (families.has(name) ? `${name} (${families.get(name)!.join(', ')})` : name));
      const globs = expanded.length > 0 ? ` Globs: ${expanded.join('; ')}.` : '';
      const skipped =
        unknown.length > 0 ? ` Not loaded (not a family or tool you may use): ${unknown.join(', ')}. Families: ${catalogue}.` : '';
      const missed = unmatched.length > 0 ? ` Matched nothing you may use: ${unmatched.join(', ')}. Families: ${catalogue}.` : '';
      return {
        status: 'success',
        data: `Loaded ${loaded.join('; ')}. Their full schemas are in your tool list from your next step.${globs}${skipped}${missed}`,
      };
    },
  });
}

function isGlob(name: string): boolean {
  return picomatch.scan(name).isGlob;
}

/** The names a glob matches, in the order given (families first): case-sensitive, as tool names are. */
function matchingNames(glob: string, candidates: readonly string[]): string[] {
  const matches = picomatch(glob, { dot: true, nocase: false });
  return candidates.filter((candidate) => matches(candidate));
}
