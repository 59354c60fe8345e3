// The tool the engine benchmarks call: it does nothing, so a step's time is the framework's own.
import { z } from 'zod';
import { defineTool } from '@legion-collective/core';

export const noopTool = defineTool({
  name: 'noop',
  effect: 'read',
  description: 'Does nothing and returns at once.',
  inputSchema: z.object({ step: z.number().int() }),
  async execute(input) {
    return { status: 'success', data: { ok: input.step } };
  },
});
