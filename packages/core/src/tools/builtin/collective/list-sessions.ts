import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import type { CollectiveToolsOptions } from './collective-tool-options.js';

const DEFAULT_SESSIONS = 20;

/** The workspace's sessions, most recently active first. */
export function createListSessionsTool(options: Pick<CollectiveToolsOptions, 'sessions'>): Tool {
  return defineTool({
    name: 'list_sessions',
    description:
      `List the working sessions of this workspace, most recently active first (default ${DEFAULT_SESSIONS}): id, last activity, title; the current one is marked. ` +
      'Pass a session id to list_conversations or search_history to look into an earlier session.',
    input: () => z.object({ limit: z.number().int().positive().max(500).optional().describe(`How many (default ${DEFAULT_SESSIONS}).`) }),
    concurrent: true,
    effect: 'read',
    async execute(input, context) {
      const all = await options.sessions.list();
      if (all.length === 0) return { status: 'success', data: 'No sessions.' };
      const limit = input.limit ?? DEFAULT_SESSIONS;
      const lines = all
        .slice(0, limit)
        .map(
          (meta) =>
            `${meta.id}  last active ${meta.lastActiveAt}${meta.title ? `  "${meta.title}"` : ''}${meta.id === context.session.id ? '  (current)' : ''}`,
        );
      const more = all.length > limit ? `\n(${all.length - limit} older not shown)` : '';
      return { status: 'success', data: `${all.length} session${all.length === 1 ? '' : 's'}:\n${lines.join('\n')}${more}` };
    },
  });
}
