import { z } from 'zod';
import { EventBus } from '../kernel/events/EventBus.js';
import { defineTool, toolDefinition } from './tool.js';
import { ToolRegistry } from './ToolRegistry.js';

const tool = (name: string) =>
  defineTool({
    name,
    description: `${name} tool`,
    inputSchema: z.object({ path: z.string().describe('where') }),
    execute: async () => ({ status: 'success', data: null }),
  });

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

  it('fills on first use: a put-off fill runs before the first read or registration, in its place, and dispose() drops it unrun', async () => {
    const events = new EventBus();
    const registered: string[] = [];
    events.on('tool:register', (event) => registered.push(event.name));
    const registry = new ToolRegistry({ events });
    let fills = 0;
    registry.fillOnFirstUse(() => {
      fills++;
      registry.register(tool('file_read'));
    });
    expect(fills).toBe(0);
    // A later registration of a taken name still meets the filled tool first.
    expect(() => registry.register(tool('file_read'))).toThrow(/already registered/);
    expect(fills).toBe(1);
    registry.register(tool('shell_run'));
    expect(registry.list().map((t) => t.name)).toEqual(['file_read', 'shell_run']);
    expect(fills).toBe(1);
    // Only the fill's own registrations go unannounced: they stand for what was there from the start.
    expect(registered).toEqual(['shell_run']);

    for (const use of [
      (r: ToolRegistry) => r.get('x'),
      (r: ToolRegistry) => r.list(),
      (r: ToolRegistry) => r.providerOf('x'),
      (r: ToolRegistry) => r.ready(),
    ]) {
      const other = new ToolRegistry();
      other.fillOnFirstUse(() => other.register(tool('file_read')));
      await use(other);
      expect(other.get('file_read')).toBeDefined();
    }

    const unused = new ToolRegistry();
    let ran = false;
    unused.fillOnFirstUse(() => {
      ran = true;
    });
    await unused.dispose();
    unused.list();
    expect(ran).toBe(false);
  });
});
