import type { Permission } from '../team/index.js';
import { permissionMatcher } from '../team/index.js';
import { errorMessage, LegionError } from '../kernel/index.js';
import type { EventBus } from '../kernel/index.js';
import { PROGRAMMATIC_PROVIDER_ID, type ProvidedTool, type ToolProvider } from './providers/tool-provider.js';
import type { Tool } from './tool.js';

/** Options of a registry; without `events` it works the same, silently. */
export interface ToolRegistryOptions {
  /** Receives `tool:register` / `tool:unregister`, and `error:raised` for a provider that fails or clashes. */
  events?: EventBus;
}

interface Entry {
  tool: Tool;
  providerId: string;
}

interface ProviderState {
  provider: ToolProvider;
  /** What the provider listed last, by name, to tell unchanged tools from new ones. */
  listed: Map<string, ProvidedTool>;
  /** Bumped on every reload so that a slow, stale `getTools()` answer is dropped. */
  generation: number;
  disposed: boolean;
  /** Not asked for its tools yet: waits for the first `ready()` (see `registerToolProvider`). */
  deferred: boolean;
  unsubscribe?: (() => void) | undefined;
}

/**
 * All tools Legion knows, where each came from, and which of them a
 * participant may see. Tools come one by one (`registerTool`) or from
 * providers (`registerToolProvider`) whose lists the registry keeps current.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, Entry>();
  private readonly providers = new Map<string, ProviderState>();
  private readonly pending = new Set<Promise<void>>();
  /** Registrations put off until the registry is first used (see `fillOnFirstUse`). */
  private fill: (() => void) | undefined;
  /** While a put-off fill runs: its events would have fired when nobody could listen yet. */
  private filling = false;

  constructor(private readonly options: ToolRegistryOptions = {}) {}

  /**
   * Puts off `fill` (registrations, such as building the built-in tools and their schemas) until
   * the registry is first read or changed, so a process that never looks at tools (`legion
   * sessions`) never pays for them. It then runs synchronously before that call's own work, so
   * the registry ends up as if it had run now; its events are not emitted, as nobody could have
   * listened to them now. `dispose()` before any use drops it unrun.
   */
  fillOnFirstUse(fill: () => void): void {
    this.fillNow();
    this.fill = fill;
  }

  private fillNow(): void {
    const fill = this.fill;
    if (!fill) return;
    this.fill = undefined;
    this.filling = true;
    try {
      fill();
    } finally {
      this.filling = false;
    }
  }

  /** Adds a tool; the returned function removes it again. A taken name throws. */
  registerTool(tool: Tool, options: { providerId?: string } = {}): () => void {
    this.fillNow();
    if (this.tools.has(tool.name)) {
      throw new LegionError(
        'duplicate_tool',
        `A tool named "${tool.name}" is already registered (by "${this.tools.get(tool.name)?.providerId}").`,
        {
          name: tool.name,
        },
      );
    }
    this.add(tool, options.providerId ?? PROGRAMMATIC_PROVIDER_ID);
    return () => this.remove(tool.name, tool);
  }

  /** The same as `registerTool`, under the name the built-in wiring uses. */
  register(tool: Tool, options: { providerId?: string } = {}): () => void {
    return this.registerTool(tool, options);
  }

  /**
   * Adds a provider's tools now (sync providers) or when its `getTools()`
   * settles, and follows its changes. With `deferred`, the provider is not
   * asked until the first `ready()`, so a provider whose listing is costly
   * (MCP servers to start) costs nothing until something needs the tools.
   * The returned function removes its tools and disposes the provider.
   */
  registerToolProvider(provider: ToolProvider, options: { deferred?: boolean } = {}): () => Promise<void> {
    this.fillNow();
    if (this.providers.has(provider.id)) {
      throw new LegionError('duplicate_tool_provider', `A tool provider with id "${provider.id}" is already registered.`, {
        id: provider.id,
      });
    }
    const state: ProviderState = { provider, listed: new Map(), generation: 0, disposed: false, deferred: options.deferred === true };
    this.providers.set(provider.id, state);
    state.unsubscribe = provider.onDidChangeTools?.(() => this.reload(state));
    if (!state.deferred) this.reload(state);
    return () => this.unregisterProvider(state);
  }

  get(name: string): Tool | undefined {
    this.fillNow();
    return this.tools.get(name)?.tool;
  }

  /** Which provider a tool came from (`programmatic` for `registerTool`). */
  providerOf(name: string): string | undefined {
    this.fillNow();
    return this.tools.get(name)?.providerId;
  }

  list(): Tool[] {
    this.fillNow();
    return [...this.tools.values()].map((entry) => entry.tool);
  }

  /** The tools a permission lets through: `all`, `none`, or names and globs (`file_*`). */
  allowedBy(permission: Permission): Tool[] {
    if (permission === 'all') return this.list();
    if (permission === 'none') return [];
    const matches = permissionMatcher(permission);
    return this.list().filter((tool) => matches(tool.name));
  }

  /**
   * Settles once every provider's latest tool list has been applied (or has
   * failed and been reported), first asking deferred providers. Cheap when
   * nothing is pending: callers may await it before every turn.
   */
  async ready(): Promise<void> {
    this.fillNow();
    for (const state of this.providers.values()) if (state.deferred) this.reload(state);
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Removes and disposes every provider; tools registered one by one stay. */
  async dispose(): Promise<void> {
    this.fill = undefined;
    await Promise.all([...this.providers.values()].map((state) => this.unregisterProvider(state)));
  }

  private reload(state: ProviderState): void {
    if (state.disposed) return;
    state.deferred = false;
    const generation = ++state.generation;
    let listed: readonly ProvidedTool[] | Promise<readonly ProvidedTool[]>;
    try {
      listed = state.provider.getTools();
    } catch (error) {
      this.reportProblem(state, `could not list its tools: ${errorMessage(error)}`);
      return;
    }
    if (!isPromise(listed)) {
      this.apply(state, listed);
      return;
    }
    const settled = listed.then(
      (tools) => {
        if (!state.disposed && generation === state.generation) this.apply(state, tools);
      },
      (error: unknown) => {
        if (!state.disposed) this.reportProblem(state, `could not list its tools: ${errorMessage(error)}`);
      },
    );
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
  }

  /** Brings the registry in line with a provider's new list, touching only what changed. */
  private apply(state: ProviderState, tools: readonly ProvidedTool[]): void {
    const next = new Map<string, ProvidedTool>();
    for (const tool of tools) {
      if (next.has(tool.name)) this.reportProblem(state, `listed two tools named "${tool.name}"; the first is used`);
      else next.set(tool.name, tool);
    }
    const id = state.provider.id;
    for (const [name, previous] of state.listed) {
      if (next.get(name) === previous) continue;
      state.listed.delete(name);
      if (this.tools.get(name)?.providerId === id) this.remove(name);
    }
    for (const [name, provided] of next) {
      if (state.listed.get(name) === provided) continue;
      const owner = this.tools.get(name);
      if (owner) {
        this.reportProblem(state, `offers a tool named "${name}", which "${owner.providerId}" already registered; it is left out`);
        continue;
      }
      const tool = this.bind(state.provider, provided);
      if (!tool) {
        this.reportProblem(state, `offers "${name}" without an execute function and has no execute() of its own; it is left out`);
        continue;
      }
      state.listed.set(name, provided);
      this.add(tool, id);
    }
  }

  /** A provided tool as the executor runs it: its own `execute`, or one routed to the provider. */
  private bind(provider: ToolProvider, provided: ProvidedTool): Tool | undefined {
    if (provided.execute) return provided as Tool;
    if (!provider.execute) return undefined;
    const name = provided.name;
    return { ...provided, execute: (input, context) => provider.execute!(name, input, context) };
  }

  private async unregisterProvider(state: ProviderState): Promise<void> {
    if (state.disposed) return;
    state.disposed = true;
    state.unsubscribe?.();
    if (this.providers.get(state.provider.id) === state) this.providers.delete(state.provider.id);
    for (const name of state.listed.keys()) {
      if (this.tools.get(name)?.providerId === state.provider.id) this.remove(name);
    }
    state.listed.clear();
    try {
      await state.provider.dispose();
    } catch (error) {
      this.reportProblem(state, `failed to shut down: ${errorMessage(error)}`);
    }
  }

  private add(tool: Tool, providerId: string): void {
    this.tools.set(tool.name, { tool, providerId });
    if (!this.filling) this.options.events?.emit('tool:register', { name: tool.name, providerId });
  }

  /** Removes `name`, or only if it is still `tool` (a disposer must not remove a later tool of the same name). */
  private remove(name: string, tool?: Tool): void {
    const entry = this.tools.get(name);
    if (!entry || (tool && entry.tool !== tool)) return;
    this.tools.delete(name);
    if (!this.filling) this.options.events?.emit('tool:unregister', { name, providerId: entry.providerId });
  }

  private reportProblem(state: ProviderState, problem: string): void {
    if (!this.filling)
      this.options.events?.emit('error:raised', {
        scope: `tool provider ${state.provider.id}`,
        message: `Tool provider "${state.provider.id}" ${problem}.`,
        code: 'tool_provider_problem',
      });
  }
}

function isPromise<Value>(value: Value | Promise<Value>): value is Promise<Value> {
  return typeof (value as { then?: unknown }).then === 'function';
}
