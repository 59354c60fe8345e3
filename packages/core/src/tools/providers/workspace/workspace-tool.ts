import type { Tool, ToolContext, ToolEffect, ToolResult } from '../../tool.js';
import { purposeOf } from '../../child-processes/process-records.js';
import { DEFAULT_SANDBOX_SETTINGS, sandboxUse, type SandboxSettings } from '../../child-processes/sandbox.js';
import { compileJsonSchema, jsonSchemaInput } from '../json-schema-input.js';
import { executeHttp } from './http-execution.js';
import { fillTemplate, type PlaceholderScope } from './placeholders.js';
import { ALLOW_OPTION_LIKE, optionLikeParameters } from './argv-template.js';
import { executeShell } from './shell-execution.js';
import type { WorkspaceToolFile } from './workspace-tool-schema.js';

/** A tool defined by a `.legion/tools/*.json` file, with what listings show besides the name. */
export interface WorkspaceTool extends Tool {
  /** The file that defines it. */
  readonly file: string;
  readonly category: string | undefined;
  readonly tags: readonly string[];
  readonly requiresApproval: boolean;
}

export interface WorkspaceToolOptions {
  file: string;
  /** Where `execution.cwd` is resolved from when the call's context names no workspace. */
  workspaceRoot: string;
  /** Source of `${env:NAME}`. */
  env: NodeJS.ProcessEnv;
  /** Environment of shell commands; defaults to `env` without Legion's keys. */
  commandEnv?: NodeJS.ProcessEnv | undefined;
  /** The sandbox settings its commands run with (shell tools), read at each call; default `DEFAULT_SANDBOX_SETTINGS`. */
  sandbox?: (() => SandboxSettings) | undefined;
}

/**
 * Turns a checked definition into a Tool. Throws only if `parameters` is not
 * a valid JSON Schema (the loader reports that against the file).
 */
export function createWorkspaceTool(definition: WorkspaceToolFile, options: WorkspaceToolOptions): WorkspaceTool {
  const { $schema: _declared, ...parameters } = definition.parameters ?? { type: 'object', properties: {} };
  const validate = compileJsonSchema(parameters);
  const defaults = defaultsOf(parameters.properties);
  const optionLike = optionLikeParameters(parameters.properties);
  const requiresApproval = definition.requiresApproval ?? true;
  const execution = definition.execution;
  // Approval follows what the tool can do; a tool declared safe runs like a read.
  const effect: ToolEffect = !requiresApproval ? 'read' : execution.type === 'shell' ? 'shell' : 'network';
  const sandbox = options.sandbox ?? (() => DEFAULT_SANDBOX_SETTINGS);
  const scopeFor = (input: unknown): PlaceholderScope => {
    const envOnly: PlaceholderScope = { input: {}, defaults: {}, variables: {}, env: options.env };
    const variables: Record<string, string> = {};
    for (const [name, value] of Object.entries(definition.variables ?? {})) variables[name] = fillTemplate(value, envOnly);
    const args = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
    return { input: args, defaults, variables, env: options.env };
  };
  return {
    name: definition.name,
    description: definition.description,
    parameters: withoutLegionKeywords(parameters),
    inputSchema: jsonSchemaInput(validate),
    effect,
    ...(definition.timeoutMs === undefined ? {} : { timeoutMs: definition.timeoutMs }),
    file: options.file,
    category: definition.category,
    tags: definition.tags ?? [],
    requiresApproval,
    // Every shell tool runs a command, in the sandbox where it is on, whether or not it asks first.
    ...(execution.type === 'shell' ? { sandbox: () => sandboxUse(sandbox()) } : {}),
    execute(input: unknown, context: ToolContext): Promise<ToolResult> {
      const scope = scopeFor(input);
      if (execution.type === 'shell') {
        return executeShell({
          toolName: definition.name,
          execution,
          scope,
          workspaceRoot: context.workspaceRoot ?? options.workspaceRoot,
          signal: context.signal,
          timeoutMs: definition.timeoutMs,
          commandEnv: options.commandEnv,
          optionLike,
          purpose: purposeOf({ ...context, workspaceRoot: context.workspaceRoot ?? options.workspaceRoot }),
          sandbox: sandbox(),
        });
      }
      return executeHttp({ toolName: definition.name, execution, scope, signal: context.signal, toolTimeoutMs: definition.timeoutMs });
    },
  };
}

/** The parameters as the model sees them: Legion's own keywords are for Legion, and strict providers reject unknown ones. */
function withoutLegionKeywords<Schema extends { properties?: Record<string, Record<string, unknown>> | undefined }>(
  parameters: Schema,
): Schema {
  if (!parameters.properties) return parameters;
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [name, schema] of Object.entries(parameters.properties)) {
    const { [ALLOW_OPTION_LIKE]: _allowed, ...rest } = schema;
    properties[name] = rest;
  }
  return { ...parameters, properties };
}

function defaultsOf(properties: Record<string, Record<string, unknown>> | undefined): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties ?? {})) {
    if (schema.default !== undefined) defaults[name] = schema.default;
  }
  return defaults;
}
