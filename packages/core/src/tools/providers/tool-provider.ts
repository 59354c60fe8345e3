import type { Tool, ToolContext, ToolResult } from '../tool.js';

/** A tool as a provider lists it: it may carry its own `execute`, or leave running it to the provider. */
export type ProvidedTool = Omit<Tool, 'execute'> & { execute?: Tool['execute'] };

/**
 * A source of tools: built-in families, `.legion/tools/*.json`, MCP servers, a
 * library user's code. The registry asks for the tools when the provider is
 * registered and again whenever the provider says they changed, so a provider
 * never touches the registry itself.
 */
export interface ToolProvider {
  /** Unique among registered providers (`workspace`, `mcp`, …); events name it. */
  readonly id: string;
  /** The tools it offers now. Returning the same objects as last time means "unchanged". */
  getTools(): readonly ProvidedTool[] | Promise<readonly ProvidedTool[]>;
  /** Runs a tool that was listed without its own `execute`. */
  execute?(name: string, input: unknown, context: ToolContext): Promise<ToolResult>;
  /** Calls `listener` when `getTools()` would answer differently; returns the unsubscribe. */
  onDidChangeTools?(listener: () => void): () => void;
  /** Releases what the provider holds: watchers, child processes, connections. */
  dispose(): void | Promise<void>;
}

/** Tools registered one by one through `registerTool` report this provider id. */
export const PROGRAMMATIC_PROVIDER_ID = 'programmatic';
