import { z } from 'zod';
import type { ConversationRef, EventBus, KeptFileChange, TurnTrace } from '../kernel/index.js';
import type { EditorFiles, PausedOnApprovals, ToolSession } from '../session/index.js';
import type { ToolDefinition } from '../model/index.js';
import type { DelegationFrame } from '../store/index.js';
import type { SandboxUse } from './child-processes/sandbox.js';

/**
 * What a tool returns: data for the model, or an error it can act on. Tools do
 * not throw. `paused` comes from `communicate` when the delegate's turn is
 * paused on approvals that are this caller's (or its callers') to give, or on
 * a question to a user nobody could be asked. A call that changed a file says what it
 * did to it (`fileChange`): kept with the result, for the history, not shown to the model.
 */
export type ToolResult =
  { status: 'success'; data: unknown; fileChange?: KeptFileChange } | { status: 'error'; error: string } | PausedOnApprovals;

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
   * The editor the session is driven from, when it offers its files and this turn works in the
   * workspace itself (an isolated delegation's worktree is not what the editor shows): file tools
   * read and write through it once the path and claims are checked. Unset: the disk.
   */
  editorFiles?: EditorFiles | undefined;
  /**
   * Whether this tool may show, or look inside, this workspace-relative entry
   * for the caller: reading it is not denied to them, nor is this tool's own
   * call on it (`authorization/entry-visibility.ts`). Every tool that
   * enumerates files (`file_list`, `file_grep`, `file_glob`) shows only such
   * entries, so no listing or search reveals what a deny hides.
   */
  readable(path: string): boolean;
  /**
   * Tokens a result may hold before the context evicts it to an artifact (the
   * agent's `context.evictAboveTokens`): a tool that pages (`artifact_read`)
   * stays under it. Unset outside an agent's turn.
   */
  resultTokenBudget?: number | undefined;
  /** The caller's turn span: each call run gets an `execute_tool` span under it. */
  trace?: TurnTrace | undefined;
  /** This call's `execute_tool` span as a W3C `traceparent`, while an SDK records: communicate hands it to the turn it waits on. */
  traceparent?: string | undefined;
}

/**
 * The context of one caller's calls, before each call's own: `visible` judges
 * an entry for a given tool, and the executor hands each tool `readable` bound
 * to itself, so no tool can judge its entries by another tool's rules.
 */
export type CallerContext = Omit<ToolContext, 'toolUseId' | 'readable'> & {
  visible(
    path: string,
    tool: Pick<Tool, 'name' | 'effect' | 'pathArguments' | 'policyAliases' | 'commandArguments' | 'readsPaths' | 'sandbox'>,
  ): boolean;
};

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
  /**
   * One line for small models (`toolSchemas: 'compact'`) and the catalogue of
   * tools loaded on demand; defaults to the description's first sentence.
   */
  summary?: string;
  /**
   * The family it is loaded with on demand (`load_tools`): built-ins by family
   * (`files`, `shell`, …), MCP tools by server (`mcp__<server>`); defaults to
   * its provider's id (`workspace`, `programmatic`).
   */
  family?: string;
  /**
   * Its schema reaches the model only once loaded (`load_tools`), whatever the
   * agent's `toolSchemas`: MCP servers with `lazy: true`. `false`: always sent,
   * even under `compact`. Unset: as `toolSchemas` says.
   */
  lazy?: boolean;
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
  /**
   * The call reads the files its path arguments name, and what it returns (or
   * its error) tells something of their content: `file_edit` says whether, and
   * on which line, its old_string occurs. Such a call is never allowed more
   * than `file_read` of the same paths (a deny on reading denies it too), so
   * it cannot serve as a way round a read deny.
   */
  readsPaths?: boolean;
  /**
   * For a tool that runs commands a model wrote (`shell_run`, `process_start`, shell workspace
   * tools): how its calls run now, in the OS sandbox or not, and why. The approval card shows it,
   * and a policy rule with `whenSandboxed` applies only while it says `sandboxed`.
   */
  sandbox?: () => SandboxUse;
  execute(input: Input, context: ToolContext): Promise<ToolResult>;
  /** Overrides the default tool timeout; `0` means no timeout (e.g. waiting on a delegate). */
  timeoutMs?: number;
  /** May run at the same time as the other concurrent calls of one model response. */
  concurrent?: boolean;
}

/** A tool declared with `input`, the function that builds its `inputSchema` (see `defineTool`). */
export type LazyInputTool<Schema extends z.ZodType> = Omit<Tool<z.infer<Schema>>, 'inputSchema'> & { input: () => Schema };

/**
 * Declares a tool with its input type inferred from the schema. Given `input` instead of
 * `inputSchema`, the schema is built on first use: building the zod schemas of the thirty-odd
 * built-in tools was some 2 ms of every `legion run`, yet a model is offered their JSON Schema,
 * converted ahead of time (builtin-parameters.ts), and the zod schema is needed only to check a call.
 */
export function defineTool<Schema extends z.ZodType>(tool: Tool<z.infer<Schema>> & { inputSchema: Schema }): Tool;
export function defineTool<Schema extends z.ZodType>(tool: LazyInputTool<Schema>): Tool;
export function defineTool<Schema extends z.ZodType>(
  tool: (Tool<z.infer<Schema>> & { inputSchema: Schema }) | LazyInputTool<Schema>,
): Tool {
  if (!('input' in tool)) return tool as unknown as Tool;
  const { input, ...rest } = tool;
  let schema: z.ZodType | undefined;
  return Object.defineProperty(rest, 'inputSchema', {
    get: () => (schema ??= input()),
    // Replaceable as a plain property is.
    set: (value: z.ZodType) => (schema = value),
    enumerable: true,
    configurable: true,
  }) as unknown as Tool;
}

const definitions = new WeakMap<Tool, ToolDefinition>();
const compactDefinitions = new WeakMap<Tool, ToolDefinition>();

/** The model-facing definition, converted from zod once per tool. */
export function toolDefinition(tool: Tool): ToolDefinition {
  let definition = definitions.get(tool);
  if (!definition) {
    const { $schema: _ignored, ...parameters } = (tool.parameters ??
      z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' })) as Record<string, unknown>;
    definition = { name: tool.name, description: tool.description, parameters };
    definitions.set(tool, definition);
  }
  return definition;
}

/** The one line a small model or the catalogue gets: `summary`, else the description's first sentence. */
export function toolSummary(tool: Pick<Tool, 'summary' | 'description'>): string {
  if (tool.summary !== undefined) return tool.summary;
  const firstLine = tool.description.split('\n', 1)[0] ?? '';
  const sentence = /^.*?[.!?](?=\s|$)/.exec(firstLine)?.[0] ?? firstLine;
  return sentence.length <= 120 ? sentence : `${sentence.slice(0, 119)}…`;
}

/**
 * The definition for small models: the one-line summary, and the parameters
 * without their prose (`description`, `title`, `examples`). What is left —
 * types, enums, required fields, bounds, defaults — is all the input check
 * reads, so a call built from it is checked exactly as one built from the
 * full schema; the full one comes with `load_tools`.
 */
export function compactToolDefinition(tool: Tool): ToolDefinition {
  let definition = compactDefinitions.get(tool);
  if (!definition) {
    const full = toolDefinition(tool);
    definition = { name: tool.name, description: toolSummary(tool), parameters: withoutProse(full.parameters) as Record<string, unknown> };
    compactDefinitions.set(tool, definition);
  }
  return definition;
}

const PROSE = new Set(['description', 'title', 'examples', '$comment']);

function withoutProse(schema: unknown, key?: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => withoutProse(item));
  if (schema === null || typeof schema !== 'object') return schema;
  // Under `properties` the keys are parameter names (one may be called "description"), not keywords.
  const names = key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'definitions';
  return Object.fromEntries(
    Object.entries(schema as Record<string, unknown>)
      .filter(([name]) => names || !PROSE.has(name))
      .map(([name, value]) => [name, names ? withoutProse(value) : withoutProse(value, name)]),
  );
}
