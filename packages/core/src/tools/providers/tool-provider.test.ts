import { z } from 'zod';
import type { LegionEvent } from '../../kernel/events/event-types.js';
import { EventBus } from '../../kernel/events/EventBus.js';
import { defineTool, type Tool } from '../tool.js';
import { ToolRegistry } from '../ToolRegistry.js';
import { toolContext } from './__fixtures__/tool-context.js';
import type { ProvidedTool, ToolProvider } from './tool-provider.js';

const tool = (name: string, data: unknown = name): Tool =>
  defineTool({
    name,
    description: `${name} tool`,
    effect: 'read',
    inputSchema: z.object({}),
    execute: async () => ({ status: 'success', data }),
  });

/** A provider whose list the test changes, announcing each change like a real one. */
class ListProvider implements ToolProvider {
  disposed = 0;
  private listeners = new Set<() => void>();
  constructor(
    readonly id: string,
    public tools: readonly ProvidedTool[] | (() => Promise<readonly ProvidedTool[]>),
  ) {}
  getTools(): readonly ProvidedTool[] | Promise<readonly ProvidedTool[]> {
    return typeof this.tools === 'function' ? this.tools() : this.tools;
  }
  onDidChangeTools(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  change(tools: ListProvider['tools']): void {
    this.tools = tools;
    for (const listener of this.listeners) listener();
  }
  dispose(): void {
    this.disposed++;
  }
}

let events: EventBus;
let seen: string[];
let registry: ToolRegistry;

beforeEach(() => {
  events = new EventBus();
  seen = [];
  events.onAny((event: LegionEvent) => {
    if (event.type === 'tool:register' || event.type === 'tool:unregister')
      seen.push(`${event.type === 'tool:register' ? '+' : '-'}${event.name}@${event.providerId}`);
    if (event.type === 'error:raised') seen.push(`! ${event.message}`);
  });
  registry = new ToolRegistry({ events });
});

describe('ToolRegistry with tool providers', () => {
  it('registers single tools with registerTool (and the older register), each with a disposer and events', () => {
    const disposeA = registry.registerTool(tool('a'));
    registry.register(tool('b'), { providerId: 'builtin' });
    expect(registry.providerOf('a')).toBe('programmatic');
    expect(registry.providerOf('b')).toBe('builtin');
    expect(() => registry.registerTool(tool('b'))).toThrow('A tool named "b" is already registered (by "builtin").');
    disposeA();
    disposeA();
    expect(registry.list().map((t) => t.name)).toEqual(['b']);
    expect(seen).toEqual(['+a@programmatic', '+b@builtin', '-a@programmatic']);
  });

  it('adds a synchronous provider at once and follows its changes, touching only what changed', () => {
    const a = tool('a');
    const provider = new ListProvider('files', [a, tool('b')]);
    registry.registerToolProvider(provider);
    expect(registry.list().map((t) => t.name)).toEqual(['a', 'b']);

    provider.change([a, tool('c')]);
    expect(registry.get('a')).toBe(a);
    expect(
      registry
        .list()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['a', 'c']);

    const newerA = tool('a', 'newer');
    provider.change([newerA, registry.get('c')!]);
    expect(registry.get('a')).toBe(newerA);
    expect(seen).toEqual(['+a@files', '+b@files', '-b@files', '+c@files', '-a@files', '+a@files']);
  });

  it('waits for an asynchronous provider with ready(), and drops an answer overtaken by a newer one', async () => {
    let release!: (tools: ProvidedTool[]) => void;
    const slow = new Promise<ProvidedTool[]>((resolve) => (release = resolve));
    const provider = new ListProvider('remote', () => slow);
    registry.registerToolProvider(provider);
    expect(registry.list()).toEqual([]);
    provider.change(async () => [tool('fresh')]);
    release([tool('stale')]);
    await registry.ready();
    expect(registry.list().map((t) => t.name)).toEqual(['fresh']);
  });

  it('does not ask a deferred provider for its tools until someone awaits ready()', async () => {
    let asked = 0;
    const provider = new ListProvider('costly', async () => {
      asked++;
      return [tool('late')];
    });
    registry.registerToolProvider(provider, { deferred: true });
    expect(asked).toBe(0);
    expect(registry.list()).toEqual([]);
    await registry.ready();
    await registry.ready();
    expect(asked).toBe(1);
    expect(registry.list().map((t) => t.name)).toEqual(['late']);
  });

  it('routes tools listed without execute to the provider', async () => {
    const calls: Array<[string, unknown]> = [];
    const provider: ToolProvider = {
      id: 'router',
      getTools: () => [{ name: 'remote_echo', description: 'echo', inputSchema: z.object({ text: z.string() }), effect: 'network' }],
      async execute(name, input) {
        calls.push([name, input]);
        return { status: 'success', data: `echo ${(input as { text: string }).text}` };
      },
      dispose() {},
    };
    registry.registerToolProvider(provider);
    const routed = registry.get('remote_echo')!;
    expect(routed.effect).toBe('network');
    expect(await routed.execute({ text: 'hi' }, toolContext())).toEqual({ status: 'success', data: 'echo hi' });
    expect(calls).toEqual([['remote_echo', { text: 'hi' }]]);
  });

  it('reports clashes and failures as events instead of breaking the others', async () => {
    registry.registerTool(tool('taken'));
    registry.registerToolProvider(new ListProvider('clashing', [tool('taken'), tool('free'), tool('free')]));
    registry.registerToolProvider({
      id: 'bare',
      getTools: () => [{ name: 'no_execute', description: 'x', inputSchema: z.object({}) }],
      dispose() {},
    });
    registry.registerToolProvider(new ListProvider('broken', async () => Promise.reject(new Error('server down'))));
    await registry.ready();
    expect(registry.list().map((t) => t.name)).toEqual(['taken', 'free']);
    expect(registry.providerOf('taken')).toBe('programmatic');
    expect(seen.filter((line) => line.startsWith('!'))).toEqual([
      '! Tool provider "clashing" listed two tools named "free"; the first is used.',
      '! Tool provider "clashing" offers a tool named "taken", which "programmatic" already registered; it is left out.',
      '! Tool provider "bare" offers "no_execute" without an execute function and has no execute() of its own; it is left out.',
      '! Tool provider "broken" could not list its tools: server down.',
    ]);
    expect(() => registry.registerToolProvider(new ListProvider('broken', []))).toThrow(/already registered/);
  });

  it("removes a provider's tools and disposes it through the disposer, and all of them through dispose()", async () => {
    const first = new ListProvider('first', [tool('a')]);
    const second = new ListProvider('second', [tool('b')]);
    const disposeFirst = registry.registerToolProvider(first);
    registry.registerToolProvider(second);
    registry.registerTool(tool('mine'));
    await disposeFirst();
    await disposeFirst();
    expect(first.disposed).toBe(1);
    first.change([tool('ignored')]);
    expect(registry.list().map((t) => t.name)).toEqual(['b', 'mine']);
    await registry.dispose();
    expect(second.disposed).toBe(1);
    expect(registry.list().map((t) => t.name)).toEqual(['mine']);
    // The id is free again once its provider is gone.
    registry.registerToolProvider(new ListProvider('first', [tool('again')]));
    expect(registry.get('again')).toBeDefined();
  });
});
