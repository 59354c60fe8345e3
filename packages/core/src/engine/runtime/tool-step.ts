import { unansweredToolUses } from '../conversation/unanswered-tool-uses.js';
import type { ToolResultBlock, ToolUseBlock } from '../../kernel/index.js';
import type { ModelResponse } from '../../model/index.js';
import type { RuntimeOutcome, TurnContext } from '../../session/index.js';
import type { ToolExecutor } from '../../tools/index.js';
import type { LoadedToolsOfStep } from './loop-fast-paths.js';
import { loadHints } from './tool-offer.js';
import { resumeToolPhase, runToolPhase, type ToolPhaseInput, type ToolPhaseResult } from './tool-phase.js';
import type { TurnSettings } from './turn-settings.js';

/** The same call with the same input, again and again, is a loop: the run of repeats so far in this turn. */
export interface RepeatedCalls {
  signature: string;
  count: number;
}

/** What the tool step of a turn needs; made once per turn. */
export interface ToolStepInput {
  turn: TurnContext;
  settings: TurnSettings;
  /** The tool phase's input without the calls of one response (the same for every step of the turn). */
  phase: Omit<ToolPhaseInput, 'toolUses'>;
  executor: Pick<ToolExecutor, 'prepare'>;
  repeats: RepeatedCalls;
  /** The tools loaded in the conversation, as this step's request read them. */
  loaded: LoadedToolsOfStep;
}

/**
 * The calls of one response, before any runs: what answers a call instead of running it —
 * the provider's input errors, a hint to load a tool that is not loaded, a loop detected.
 */
export async function preflightOf(
  step: ToolStepInput,
  response: ModelResponse,
  toolUses: readonly ToolUseBlock[],
): Promise<Map<string, string>> {
  const { settings } = step;
  const preflight = new Map(response.inputErrors);
  if (settings.offer.onDemand) {
    const loaded = await step.loaded.forPreflight();
    for (const [id, hint] of loadHints(settings.offer, toolUses, loaded, step.executor)) if (!preflight.has(id)) preflight.set(id, hint);
  }
  for (const toolUse of toolUses) {
    const loop = detectLoop(step.repeats, toolUse, settings.limits.maxRepeatedToolCalls);
    if (loop) preflight.set(toolUse.id, loop);
  }
  return preflight;
}

/** Runs the calls of the reply (check, approve, execute) and appends their results; an outcome when the turn pauses on them. */
export async function runToolStep(
  step: ToolStepInput,
  response: ModelResponse,
  toolUses: readonly ToolUseBlock[],
): Promise<RuntimeOutcome | undefined> {
  const preflight = await preflightOf(step, response, toolUses);
  return settleToolPhase(step.turn, step.settings.agent.id, await runToolPhase(Object.assign({}, step.phase, { toolUses, preflight })));
}

/** On resume: continues the calls the paused turn left waiting (decided approvals, answered questions, delegates). */
export async function resumeToolStep(step: ToolStepInput): Promise<RuntimeOutcome | undefined> {
  const waiting = unansweredToolUses(await step.turn.conversation.history());
  if (waiting.length === 0) return undefined;
  return settleToolPhase(step.turn, step.settings.agent.id, await resumeToolPhase(Object.assign({}, step.phase, { toolUses: waiting })));
}

/** Appends the results that are in; if calls still wait on approvals or a user's answer, the turn pauses here. */
async function settleToolPhase(turn: TurnContext, agentId: string, phase: ToolPhaseResult): Promise<RuntimeOutcome | undefined> {
  if (phase.results.length > 0)
    await turn.conversation.append({ role: 'user', content: phase.results satisfies ToolResultBlock[] }, agentId);
  if (phase.paused.length === 0 && phase.asked.length === 0) return undefined;
  return { status: 'paused', requests: phase.paused, ...(phase.asked.length > 0 ? { questions: phase.asked } : {}) };
}

/** The same call with the same input, again and again, is a loop: refuse it with a reason. */
function detectLoop(state: RepeatedCalls, toolUse: ToolUseBlock, max: number): string | undefined {
  const signature = `${toolUse.name}\u0000${JSON.stringify(toolUse.input)}`;
  state.count = signature === state.signature ? state.count + 1 : 1;
  state.signature = signature;
  if (state.count < max) return undefined;
  return `Loop detected: you called ${toolUse.name} with the same input ${state.count} times in a row. It was not run again. Use the earlier result, change the input, or answer.`;
}
