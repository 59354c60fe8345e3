import { z } from 'zod';
import type { ConversationRef } from '../events/event-types.js';
import type { EventBus } from '../events/EventBus.js';
import type { PausedOnApprovals, ToolSession } from '../session/turn.js';
import type { ToolDefinition } from '../providers/llm-provider.js';
import type { DelegationFrame } from '../storage/delegation-frame.js';

/**
 * What a tool returns: data for the model, or an error it can act on. Tools do
 * not throw. `paused` comes from `communicate` when the delegate's turn is
 * paused on approvals that are this caller's (or its callers') to give.
 */
export type ToolResult = { status: 'success'; data: unknown } | { status: 'error'; error: string } | PausedOnApprovals;

export interface ToolContext {
  /** The participant whose model called the tool. */
  callerId: string;
  conversation: ConversationRef;
  /** The tool_use this execution answers. */
  toolUseId: string;
  /** Who waits on the caller's turn, outermost first; the caller is not included (`waitingParticipants` lists their ids). */
  frames: readonly DelegationFrame[];
  session: ToolSession;
  signal: AbortSignal;
  events: EventBus;
  workspaceRoot: string | undefined;
  /**
   * Whether the caller's `file_read` of this workspace-relative path would run
   * without asking. Searches (`file_grep`, `file_glob`) show only such files,
   * so a search never reveals what reading is denied.
   */
  readable(path: string): boolean;
  /**
   * Tokens a result may hold before the context evicts it to an artifact (the
   * agent's `context.evictAboveTokens`): a tool that pages (`artifact_read`)
   * stays under it. Unset outside an agent's turn.
   */
  resultTokenBudget?: number | undefined;
}

/**
 * What a tool does to the world. It sets the default approval policy: `read`
 * and `communicate` run automatically; `write`, `shell`, `network` and
 * `collective` (changing the team) need approval unless a policy says otherwise.
 */
export type ToolEffect = 'read' | 'write' | 'shell' | 'network' | 'communicate' | 'collective';

export interface Tool<Input = unknown> {
  /** snake_case, unique in a registry. */
  name: string;
  /** Shown to models: what it does, its limits, when to use it. */
  description: string;
  /** Validates the model's input; its JSON Schema is what the model sees unless `parameters` is given. */
  inputSchema: z.ZodType<Input>;
  /** The JSON Schema shown to models, for tools defined by JSON Schema (workspace tools, MCP). */
  parameters?: Record<string, unknown>;
  /** Defaults to `write`: a tool that does not say is treated as one that changes things. */
  effect?: ToolEffect;
  /** Argument names that hold paths (for path-scoped policy rules); defaults to `path`, `paths`, `file`, `cwd`, `directory`. */
  pathArguments?: readonly string[];
  /**
   * Other tool names whose policies also govern this tool: `file_edit` and
   * `file_delete` answer to `file_write` rules, so one rule covers every way of
   * changing a file. Tools with `commandArguments` always answer to `shell_run`.
   */
  policyAliases?: readonly string[];
  /**
   * Argument names that hold a shell command line a model wrote. Policy rules
   * parse them (not pattern-match), and such a tool answers to `shell_run`'s policy.
   */
  commandArguments?: readonly string[];
  execute(input: Input, context: ToolContext): Promise<ToolResult>;
  /** Overrides the default tool timeout; `0` means no timeout (e.g. waiting on a delegate). */
  timeoutMs?: number;
  /** May run at the same time as the other concurrent calls of one model response. */
  concurrent?: boolean;
}

/** Declares a tool with its input type inferred from the schema. */
export function defineTool<Schema extends z.ZodType>(tool: Tool<z.infer<Schema>> & { inputSchema: Schema }): Tool {
  return tool as unknown as Tool;
}

const definitions = new WeakMap<Tool, ToolDefinition>();

/** The model-facing definition, converted from zod once per tool. */
export function toolDefinition(tool: Tool): ToolDefinition {
  let definition = definitions.get(tool);
  if (!definition) {
    const { $schema: _ignored, ...parameters } = (tool.parameters ?? z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' })) as Record<string, unknown>;
    definition = { name: tool.name, description: tool.description, parameters };
    definitions.set(tool, definition);
  }
  return definition;
}
