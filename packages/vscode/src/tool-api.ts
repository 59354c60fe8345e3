import type { Legion, Tool, ToolContext, ToolEffect, ToolProvider } from '@legion-collective/core';
import * as vscode from 'vscode';
import { z } from 'zod';
import { runDirectCall } from './direct-call.js';
import { notice } from './ui-text.js';

/** A tool another extension gives Legion's agents (LingYun's shape): a JSON Schema and an `execute`. */
export interface ExternalTool {
  /** snake_case, unique among Legion's tools. */
  name: string;
  description: string;
  /** JSON Schema of the input object, shown to models. */
  inputSchema?: Record<string, unknown> | undefined;
  /** What it does to the world; sets the default policy (`read` runs, the rest asks). Default `write`. */
  effect?: ToolEffect | undefined;
  /** Returns what the model is shown; a throw becomes an error result the model can act on. */
  execute(input: Record<string, unknown>, context: { caller: string; signal: AbortSignal }): unknown;
}

/** A source of many tools; `onDidChangeTools` when its list changes. */
export interface ExternalToolProvider {
  id: string;
  getTools(): readonly ExternalTool[] | Promise<readonly ExternalTool[]>;
  onDidChangeTools?: vscode.Event<void> | undefined;
}

export interface ToolInfo {
  name: string;
  description: string;
  providerId: string | undefined;
}

/** What `activate()` returns: other extensions' door into Legion. */
export interface LegionApi {
  registerToolProvider(provider: ExternalToolProvider): vscode.Disposable;
  registerTool(tool: ExternalTool): vscode.Disposable;
  getTools(): Promise<ToolInfo[]>;
  executeTool(name: string, input: unknown): Promise<{ status: 'success'; content: string } | { status: 'error'; error: string }>;
  /** Sends a task to an agent (default: the entry agent) in the latest session, from the user. */
  runAgent(task: string, options?: { agent?: string }): Promise<{ status: string; reply?: string | undefined; error?: string | undefined }>;
  onDidRegisterTool: vscode.Event<{ name: string; providerId: string }>;
  onDidUnregisterTool: vscode.Event<{ name: string; providerId: string }>;
}

const ToolNameSchema = z
  .string()
  .regex(
    /^[a-z][a-z0-9_]{0,63}$/,
    'a tool name is snake_case: lowercase letters, digits and "_", starting with a letter, at most 64 characters',
  );
const ExternalToolSchema = z.object({
  name: ToolNameSchema,
  description: z.string().min(1, 'a tool needs a description: models choose tools by it'),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  effect: z.enum(['read', 'write', 'shell', 'network', 'communicate', 'collective']).optional(),
  execute: z.custom<ExternalTool['execute']>((value) => typeof value === 'function', 'execute must be a function'),
});
const ProviderIdSchema = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a provider id is lowercase letters, digits, ".", "_" or "-"');
const InputSchema = z.record(z.string(), z.unknown());

/** Checks a tool another extension hands us; a misuse throws a message naming the field and the fix. */
export function toLegionTool(given: ExternalTool): Tool {
  const parsed = ExternalToolSchema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(
      `Legion: tool ${JSON.stringify((given as { name?: unknown })?.name ?? '?')}: ${issue.path.join('.') || 'tool'}: ${issue.message}`,
    );
  }
  const tool = parsed.data;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: InputSchema,
    parameters: tool.inputSchema ?? { type: 'object', properties: {} },
    ...(tool.effect ? { effect: tool.effect } : {}),
    execute: async (input: unknown, context: ToolContext) => {
      try {
        const data = await tool.execute(input as Record<string, unknown>, { caller: context.callerId, signal: context.signal });
        return { status: 'success', data: data ?? null };
      } catch (error) {
        return { status: 'error', error: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}

/** Builds the API over the open Legion (opened on first use by `legion()`). */
export function createLegionApi(legion: () => Legion, onOpen: vscode.Event<Legion>): LegionApi & vscode.Disposable {
  const registered = new vscode.EventEmitter<{ name: string; providerId: string }>();
  const unregistered = new vscode.EventEmitter<{ name: string; providerId: string }>();
  let offEvents: Array<() => void> = [];
  const listen = (opened: Legion): void => {
    offEvents = [
      opened.events.on('tool:register', (event) => registered.fire({ name: event.name, providerId: event.providerId })),
      opened.events.on('tool:unregister', (event) => unregistered.fire({ name: event.name, providerId: event.providerId })),
    ];
  };
  const openedListener = onOpen(listen);
  return {
    registerTool(tool) {
      const checked = toLegionTool(tool);
      const off = legion().tools.registerTool(checked);
      return new vscode.Disposable(off);
    },
    registerToolProvider(provider) {
      const id = ProviderIdSchema.parse(provider.id);
      const wrapped: ToolProvider = {
        id,
        getTools: async () => (await provider.getTools()).map(toLegionTool),
        ...(provider.onDidChangeTools
          ? {
              onDidChangeTools: (listener: () => void) => {
                const subscription = provider.onDidChangeTools!(listener);
                return () => subscription.dispose();
              },
            }
          : {}),
        dispose: () => undefined,
      };
      const off = legion().tools.registerToolProvider(wrapped);
      return new vscode.Disposable(() => void off());
    },
    async getTools() {
      const opened = legion();
      return (await opened.getTools()).map((tool) => ({
        name: tool.name,
        description: tool.description,
        providerId: opened.tools.providerOf(tool.name),
      }));
    },
    executeTool: (name, input) =>
      runDirectCall(
        legion(),
        name,
        input,
        async (question) => (await vscode.window.showWarningMessage(notice(question), { modal: true }, 'Approve once')) === 'Approve once',
      ),
    async runAgent(task, options = {}) {
      const result = await legion().runAgent(task, options.agent ? { agent: options.agent } : {});
      if (result.status === 'success') return { status: 'success', reply: result.reply };
      if (result.status === 'error') return { status: 'error', error: result.error };
      return { status: 'paused', error: `waiting on approvals ${result.requests.map((request) => request.id).join(', ')}` };
    },
    onDidRegisterTool: registered.event,
    onDidUnregisterTool: unregistered.event,
    dispose() {
      openedListener.dispose();
      for (const off of offEvents) off();
      registered.dispose();
      unregistered.dispose();
    },
  };
}
