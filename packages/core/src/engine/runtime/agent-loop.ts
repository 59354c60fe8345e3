import { MaxIterationsError, textOf, toolUsesOf, type Message, type ToolUseBlock } from '../../kernel/index.js';
import type { RuntimeOutcome } from '../../session/index.js';
import type { AnsweredCall, ModelCall } from './model-call.js';

/**
 * The named stages of one agent turn. Each either lets the turn go on or ends it with an
 * outcome; the loop knows nothing of what they do (budgets, tracing, the context,
 * persistence, approvals are theirs).
 */
export interface AgentLoopStages {
  /** Resuming only: continues the calls the paused turn left waiting; an outcome (paused again) ends the turn. */
  resumeTools(): Promise<RuntimeOutcome | undefined>;
  /** Before each model call: cancellation, the session budget, the message's work; an outcome refuses the call. */
  admit(): RuntimeOutcome | undefined | Promise<RuntimeOutcome | undefined>;
  /** Prepares the request (the context stages) and calls the model. */
  callModel(): Promise<ModelCall>;
  /** Refuses a reply that may not join the conversation (too large, empty): nothing is appended then. */
  guardReply(call: AnsweredCall): RuntimeOutcome | undefined;
  /** Appends the reply and records its usage; the message as appended. */
  recordReply(call: AnsweredCall): Promise<Message>;
  /** Runs the reply's tool calls and appends their results; an outcome when the turn pauses on them. */
  runTools(call: AnsweredCall, toolUses: readonly ToolUseBlock[]): Promise<RuntimeOutcome | undefined>;
}

/**
 * The agent loop: call the model, append its reply, run the tools it asked for and
 * append their results, and go again until it answers without tool calls, a stage
 * ends the turn, or `maxIterations` calls were made.
 */
export async function runAgentLoop(
  stages: AgentLoopStages,
  options: { agentId: string; resuming: boolean; maxIterations: number },
): Promise<RuntimeOutcome> {
  if (options.resuming) {
    const paused = await stages.resumeTools();
    if (paused) return paused;
  }
  for (let iteration = 0; iteration < options.maxIterations; iteration++) {
    // Synchronous unless a session budget is read (loop-fast-paths.ts, `overSessionBudget`): no promise per step otherwise.
    const admission = stages.admit();
    const refused = admission instanceof Promise ? await admission : admission;
    if (refused) return refused;
    const call = await stages.callModel();
    if (call.status === 'failed') return call.outcome;
    const guarded = stages.guardReply(call);
    if (guarded) return guarded;
    const reply = await stages.recordReply(call);
    const toolUses = toolUsesOf(reply);
    if (toolUses.length === 0) return finalReply(reply, call);
    const paused = await stages.runTools(call, toolUses);
    if (paused) return paused;
  }
  return { status: 'error', code: 'max_iterations', error: new MaxIterationsError(options.agentId, options.maxIterations).message };
}

/** The answer that ends the turn. Cut off at the output limit: still the reply, but said to be cut so the caller can ask for the rest. */
function finalReply(reply: Message, call: AnsweredCall): RuntimeOutcome {
  return {
    status: 'success',
    reply: textOf(reply),
    message: reply,
    ...(call.response.finishReason === 'max_tokens' ? { truncated: true } : {}),
  };
}
