import { z } from 'zod';
import { defineTool, toolDefinition } from './tool.js';
import { createBuiltinTools } from './builtin/index.js';
import { createTestLegion, userParticipant } from '../testing/index.js';

describe('defineTool with input', () => {
  const declare = (build: () => z.ZodType) =>
    defineTool({
      name: 'echo',
      description: 'Echo.',
      input: () => build() as z.ZodObject<{ text: z.ZodString }>,
      effect: 'read',
      execute: async (input) => ({ status: 'success', data: input.text }),
    });

  it('builds the input schema on first read, once, and checks calls with it', () => {
    let builds = 0;
    const tool = declare(() => {
      builds++;
      return z.object({ text: z.string().min(1) });
    });
    expect(builds).toBe(0);
    const schema = tool.inputSchema;
    expect(builds).toBe(1);
    expect(tool.inputSchema).toBe(schema);
    expect(builds).toBe(1);
    expect(schema.safeParse({ text: 'hi' }).success).toBe(true);
    expect(schema.safeParse({ text: '' }).success).toBe(false);
  });

  it('converts the schema it builds for the model when no parameters are given', () => {
    const tool = declare(() => z.object({ text: z.string().min(1) }));
    expect(toolDefinition(tool).parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string', minLength: 1 } },
      required: ['text'],
    });
  });

  it('lets the schema be replaced, as a plain property can be', () => {
    const tool = declare(() => z.object({ text: z.string() }));
    const other = z.object({ text: z.string().max(2) });
    tool.inputSchema = other;
    expect(tool.inputSchema).toBe(other);
  });
});

describe('built-in tools', () => {
  it('build no input schema when created: offering them needs only their precomputed JSON Schema', async () => {
    const test = createTestLegion({ participants: [userParticipant()] });
    const builtin = createBuiltinTools({ collective: test.legion.collective, sessions: test.legion.sessions, toolsFor: () => [] });
    try {
      for (const tool of builtin.tools) {
        // An accessor, which builds the schema when a call is first checked, not a schema built with the tool.
        expect(Object.getOwnPropertyDescriptor(tool, 'inputSchema')?.get, tool.name).toBeTypeOf('function');
        expect(tool.parameters, tool.name).toBeDefined();
        expect(tool.inputSchema.safeParse(undefined).success, tool.name).toBe(false);
      }
    } finally {
      await builtin.dispose();
      test.cleanup();
    }
  });
});
