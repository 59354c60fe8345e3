import type { Legion, Tool } from '@legion-collective/core';
import { z } from 'zod';
import { runDirectCall, type DirectCallResult } from './direct-call.js';
import { builtinFor, CALL_TOOL_TOOL, LIST_TOOLS_TOOL, NOT_FOR_EDITOR, RUN_AGENT_TOOL } from './editor-tool-catalogue.js';

/** One call of a Legion tool that the editor's agent asked for. */
export interface EditorCall {
  tool: string;
  input: unknown;
}

/** What a call will meet before it runs: refused, run at once, or asked of the user first. */
export type EditorCallJudgement = { mode: 'refuse'; error: string } | { mode: 'run' } | { mode: 'confirm'; question: string };

const ListToolsInputSchema = z.object({ prefix: z.string().optional(), full: z.boolean().optional() }).strict();
const RunAgentInputSchema = z.object({ task: z.string().trim().min(1), agent: z.string().min(1).optional() }).strict();
const CallToolInputSchema = z.object({ tool: z.string().min(1), input: z.record(z.string(), z.unknown()) }).strict();

/** The Legion tool and input an editor tool's call stands for: `legion_file_read` itself, `legion_call_tool` by its arguments. */
export function resolveEditorCall(editorToolName: string, input: unknown): { ok: true; call: EditorCall } | { ok: false; error: string } {
  const builtin = builtinFor(editorToolName);
  if (builtin) return { ok: true, call: { tool: builtin, input } };
  if (editorToolName !== CALL_TOOL_TOOL) return { ok: false, error: `${editorToolName} is not a Legion tool offered to the editor.` };
  const parsed = CallToolInputSchema.safeParse(input);
  if (!parsed.success)
    return {
      ok: false,
      error: `${CALL_TOOL_TOOL} takes { "tool": "<a name from ${LIST_TOOLS_TOOL}>", "input": { … } }: ${describeIssue(parsed.error)}`,
    };
  return { ok: true, call: { tool: parsed.data.tool, input: parsed.data.input } };
}

/**
 * Judges a call as the workspace's user, the participant the editor's agent acts for: a tool kept
 * from the editor or an input the tool's own schema rejects is refused before anyone is asked; then
 * the policies decide (deny → refused, requires approval → the user confirms).
 */
export async function judgeEditorCall(legion: Legion, call: EditorCall): Promise<EditorCallJudgement> {
  const kept = NOT_FOR_EDITOR.get(call.tool);
  if (kept) return { mode: 'refuse', error: `${call.tool} is not run for the editor's agents: ${kept}.` };
  await legion.tools.ready();
  const tool = legion.tools.get(call.tool);
  if (!tool) return { mode: 'refuse', error: `Legion has no tool "${call.tool}": ${LIST_TOOLS_TOOL} lists the tools.` };
  const parsed = tool.inputSchema.safeParse(call.input);
  if (!parsed.success) return { mode: 'refuse', error: `${call.tool}: invalid input: ${describeIssue(parsed.error)}` };
  const user = legion.collective.defaultUser();
  if (!user)
    return {
      mode: 'refuse',
      error: `The collective has no user participant to run ${call.tool} as: add one to .legion/collective/participants/.`,
    };
  // On the input as the tool will run it (defaults filled in), as runDirectCall judges it at run time.
  const decision = legion.auth.evaluate({ participant: user, tool, input: parsed.data });
  if (decision.mode === 'deny') return { mode: 'refuse', error: `${call.tool} is denied (${decision.source}): ${decision.reason}` };
  if (decision.mode === 'requires_approval')
    return {
      mode: 'confirm',
      question: `The editor's agent asks Legion to run ${call.tool} with ${JSON.stringify(call.input)} (${decision.reason}).`,
    };
  return { mode: 'run' };
}

/**
 * Runs a call through the same door as the API's `executeTool` (`runDirectCall`), which judges
 * the policies again at run time: a policy changed since the user was asked still holds.
 */
export async function runEditorCall(
  legion: Legion,
  call: EditorCall,
  confirm: (question: string) => Promise<boolean>,
  signal?: AbortSignal,
): Promise<DirectCallResult> {
  const judged = await judgeEditorCall(legion, call);
  if (judged.mode === 'refuse') return { status: 'error', error: judged.error };
  return runDirectCall(legion, call.tool, call.input, confirm, signal);
}

/**
 * Whether VS Code's own confirmation of `editorToolName` may stand for Legion's approval. Its
 * "Always allow" is kept per editor tool: for `legion_file_write` that is a standing approval of
 * file_write, as Legion's "approve always" is; for `legion_call_tool` it would approve every tool
 * that one reaches (shell_run, file_delete, MCP tools, roster changes) after the user allowed one,
 * so a call through it is asked in Legion's own modal, which has no "always".
 */
export function editorConfirmationStands(editorToolName: string): boolean {
  return builtinFor(editorToolName) !== undefined;
}

/**
 * The calls the user confirmed in VS Code's own confirmation (shown because `prepareInvocation`
 * found that the policy asks), per editor tool: a confirmation of `legion_file_write` never lets
 * the same call through `legion_call_tool`. Taken once by `invoke`; a call that needs approval and
 * has no entry (the policy changed between the two, or its editor tool's confirmation does not
 * stand) is asked again in a modal, so approval is never skipped.
 */
export class ConfirmedCalls {
  private readonly keys = new Set<string>();
  private key(editorToolName: string, call: EditorCall): string {
    return `${editorToolName}\u0000${call.tool}\u0000${JSON.stringify(call.input)}`;
  }
  asked(editorToolName: string, call: EditorCall): void {
    if (!editorConfirmationStands(editorToolName)) return;
    this.keys.add(this.key(editorToolName, call));
    // Calls the user cancelled are never invoked; keep the set small.
    if (this.keys.size > 64) this.keys.delete(this.keys.values().next().value!);
  }
  notAsked(editorToolName: string, call: EditorCall): void {
    this.keys.delete(this.key(editorToolName, call));
  }
  take(editorToolName: string, call: EditorCall): boolean {
    return this.keys.delete(this.key(editorToolName, call));
  }
}

/**
 * `legion_run_agent`: gives the collective a task as the user. The model's input is checked here
 * (VS Code does not hold it to the declared schema), and a task the collective refuses (no such
 * agent, a message to the user itself) comes back as an error the model can act on, not a throw.
 */
export async function runAgentForEditor(legion: Legion, input: unknown, signal?: AbortSignal): Promise<string> {
  const parsed = RunAgentInputSchema.safeParse(input);
  if (!parsed.success)
    return `Error: ${RUN_AGENT_TOOL} takes { "task": "<what to do>", "agent"?: "<an agent id; default the entry agent>" }: ${describeIssue(parsed.error)}`;
  const { task, agent } = parsed.data;
  if (agent !== undefined && legion.collective.get(agent)?.type !== 'agent') {
    const agents = legion.collective.agents().map((participant) => participant.id);
    return `Error: "${agent}" is not an agent of this collective; agents: ${agents.join(', ') || 'none'}.`;
  }
  try {
    const result = await legion.runAgent(task, { ...(agent ? { agent } : {}), ...(signal ? { signal } : {}) });
    return result.status === 'success'
      ? result.reply
      : result.status === 'error'
        ? `Error: ${result.error}`
        : `Paused on approvals: ${result.requests.map((request) => request.id).join(', ')}`;
  } catch (error) {
    return `Error: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** What `legion_call_tool` can reach, each with its effect and what the policies make of it for the user. */
export async function listEditorTools(legion: Legion, input: unknown): Promise<string> {
  const parsed = ListToolsInputSchema.safeParse(input ?? {});
  if (!parsed.success) return `Error: ${LIST_TOOLS_TOOL} takes { "prefix"?: string, "full"?: boolean }: ${describeIssue(parsed.error)}`;
  const { prefix, full } = parsed.data;
  const user = legion.collective.defaultUser();
  const tools = (await legion.getTools())
    .filter((tool) => !NOT_FOR_EDITOR.has(tool.name) && (!prefix || tool.name.startsWith(prefix)))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  if (tools.length === 0) return prefix ? `No Legion tool starts with "${prefix}".` : 'Legion has no tools here.';
  const lines = tools.map((tool) => {
    const head = `${tool.name} (${tool.effect ?? 'write'}, ${user ? standing(legion, user, tool) : 'no user to run it as'}): `;
    return full
      ? `${head}${tool.description}\n  input: ${JSON.stringify(tool.parameters ?? {})}`
      : `${head}${firstSentence(tool.description)}`;
  });
  return `${tools.length} Legion tool${tools.length === 1 ? '' : 's'}, run with ${CALL_TOOL_TOOL}:\n${lines.join('\n')}`;
}

function standing(legion: Legion, user: Parameters<Legion['auth']['summarize']>[0], tool: Tool): string {
  const summary = legion.auth.summarize(user, tool);
  const mode = summary.mode === 'auto' ? 'runs' : summary.mode === 'deny' ? 'denied' : 'asks the user';
  return summary.scoped ? `${mode}; some arguments decided otherwise` : mode;
}

function firstSentence(text: string): string {
  const end = /[.!?](\s|$)/.exec(text);
  return end ? text.slice(0, end.index + 1) : text;
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'input'}: ${issue.message}` : error.message;
}
