import { z } from 'zod';
import { createTestLegion, userParticipant, agentParticipant, type TestLegion } from '../testing/index.js';
import { BUILTIN_TOOL_SUMMARIES } from './builtin/builtin-summaries.js';
import { compactToolDefinition, defineTool, toolDefinition, toolSummary } from './tool.js';

describe('compact tool definitions', () => {
  let test: TestLegion | undefined;
  afterEach(async () => {
    await test?.cleanup();
    test = undefined;
  });

  it('keep everything the input check reads and drop the prose, even beside a parameter named "description"', () => {
    const tool = defineTool({
      name: 'make_note',
      description: 'Make a note. It is kept for the session.\nMore detail here.',
      inputSchema: z.object({
        description: z.string().min(1).describe('What the note says.'),
        kind: z.enum(['fact', 'question']).default('fact').describe('Its kind.'),
        tags: z
          .array(z.object({ name: z.string().max(20).describe('A tag.') }))
          .max(5)
          .optional(),
      }),
      effect: 'read',
      execute: () => Promise.resolve({ status: 'success', data: 'ok' }),
    });
    const compact = compactToolDefinition(tool);
    expect(compact.description).toBe('Make a note.');
    expect(compact.parameters).toEqual({
      type: 'object',
      properties: {
        description: { type: 'string', minLength: 1 },
        kind: { type: 'string', enum: ['fact', 'question'], default: 'fact' },
        tags: {
          type: 'array',
          maxItems: 5,
          items: { type: 'object', properties: { name: { type: 'string', maxLength: 20 } }, required: ['name'] },
        },
      },
      required: ['description'],
    });
    expect(JSON.stringify(toolDefinition(tool))).toContain('What the note says.');
    expect(toolSummary({ description: 'x'.repeat(200) })).toHaveLength(120);
  });

  it('give every built-in tool a one-line summary shorter than its description', async () => {
    test = createTestLegion({ participants: [userParticipant(), agentParticipant('worker')] });
    await test.legion.tools.ready();
    const builtins = test.legion.tools.list().filter((tool) => test!.legion.tools.providerOf(tool.name) === 'builtin');
    expect(builtins).toHaveLength(33);
    expect(Object.keys(BUILTIN_TOOL_SUMMARIES).sort()).toEqual(builtins.map((tool) => tool.name).sort());
    for (const tool of builtins) {
      expect(tool.summary, tool.name).toBe(BUILTIN_TOOL_SUMMARIES[tool.name]);
      expect(tool.summary!.length, tool.name).toBeLessThanOrEqual(90);
      expect(tool.summary!.length, tool.name).toBeLessThan(tool.description.length);
      expect(tool.summary, tool.name).not.toContain('\n');
      if (tool.name !== 'communicate') expect(tool.family, tool.name).toBeDefined();
    }
  });
});
