import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import type { CollectiveToolsOptions } from './collective-tool-options.js';

/** The tools the caller may use, by name, with what each does. */
export function createListToolsTool(options: Pick<CollectiveToolsOptions, 'toolsFor'>): Tool {
  return defineTool({
    name: 'list_tools',
    description:
      'List the tools you may use, sorted by name, with the first sentence of each description and its effect (read, write, shell, network, communicate, collective: ' +
      'all but read and communicate may need approval). Set full for whole descriptions; filter by a name prefix such as "file_".',
    input: () =>
      z.object({
        prefix: z.string().optional().describe('Only tools whose name starts with this.'),
        full: z.boolean().optional().describe('Whole descriptions instead of their first sentence.'),
      }),
    concurrent: true,
    effect: 'read',
    async execute(input, context) {
      const tools = [...options.toolsFor(context.callerId)]
        .filter((tool) => !input.prefix || tool.name.startsWith(input.prefix))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      if (tools.length === 0)
        return { status: 'success', data: input.prefix ? `None of your tools starts with "${input.prefix}".` : 'You have no tools.' };
      const lines = tools.map(
        (tool) => `${tool.name} (${tool.effect ?? 'write'}): ${input.full ? tool.description : firstSentence(tool.description)}`,
      );
      return { status: 'success', data: `${tools.length} tool${tools.length === 1 ? '' : 's'}:\n${lines.join('\n')}` };
    },
  });
}

function firstSentence(text: string): string {
  const end = /[.!?](\s|$)/.exec(text);
  return end ? text.slice(0, end.index + 1) : text;
}
