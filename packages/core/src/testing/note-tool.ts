import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool } from '../tools/index.js';

/**
 * `write_note`: writes `text` to `path` under `root`. A write (effect `write`), so it needs
 * approval by default: the tool the approval tests have an agent call, and whose file shows
 * whether it ran.
 */
export function writeNoteTool(root: string): Tool {
  return defineTool({
    name: 'write_note',
    description: 'Writes a note file',
    effect: 'write',
    inputSchema: z.object({ path: z.string(), text: z.string() }),
    async execute(input) {
      writeFileSync(join(root, input.path), input.text);
      return { status: 'success', data: `wrote ${input.path}` };
    },
  });
}
