import { z } from 'zod';
import { defineTool, toolDefinition } from './tool.js';
import { ToolRegistry } from './ToolRegistry.js';

const tool = (name: string) => defineTool({ name, description: `${name} tool`, inputSchema: z.object({ path: z.string().describe('where') }), execute: async () => ({ status: 'success', data: null }) });

describe('ToolRegistry', () => {
  it('filters tools by all / none / names and globs', () => {
    const registry = new ToolRegistry();
    for (const name of ['file_read', 'file_write', 'shell_run', 'mcp__github__search']) registry.register(tool(name));
    const names = (permission: Parameters<typeof registry.allowedBy>[0]) => registry.allowedBy(permission).map((t) => t.name);
    expect(names('all')).toHaveLength(4);
    expect(names('none')).toEqual([]);
    expect(names(['file_*'])).toEqual(['file_read', 'file_write']);
    expect(names(['mcp__github__*', 'shell_run'])).toEqual(['shell_run', 'mcp__github__search']);
  });

  it('refuses a duplicate name and unregisters through the returned disposer', () => {
    const registry = new ToolRegistry();
    const dispose = registry.register(tool('file_read'));
    expect(() => registry.register(tool('file_read'))).toThrow(/already registered/);
    dispose();
    expect(registry.get('file_read')).toBeUndefined();
  });

  it('gives models a JSON Schema of the input, without the $schema header', () => {
    expect(toolDefinition(tool('file_read'))).toEqual({
      name: 'file_read',
      description: 'file_read tool',
      parameters: { type: 'object', properties: { path: { type: 'string', description: 'where' } }, required: ['path'] },
    });
  });
});
