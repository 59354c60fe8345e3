import type { AgentParticipant, ContextSettings } from '../../team/index.js';
import { ARTIFACT_READ_TOOL_NAME, ToolResultEviction } from '../../model/index.js';
import type { ToolResultBlock, ToolUseBlock } from '../../kernel/index.js';
import type { ApprovalView, QuestionState, QuestionView, DelegationFrame } from '../../store/index.js';
import { type ApprovalCall, type ApprovalGate, describeApprovalRequired } from '../../hitl/index.js';
import type { AuthEngine } from '../../authorization/index.js';
import { entryVisibility } from '../../authorization/index.js';
import type { CallerContext, Tool } from '../../tools/index.js';
import { reviewResult, toResultBlock, turnWorkspaceRoot, worktreeOfFrames, Worktrees } from '../../tools/index.js';
import type { CallOutcome, PreparedCall, ToolExecutor } from '../../tools/index.js';
import type { PausedOnApprovals, TurnContext, TurnResult } from '../../session/index.js';

export interface ToolPhaseServices {
  executor: ToolExecutor;
  auth: AuthEngine;
  gate: ApprovalGate;
}

export interface ToolPhaseResult {
  /** Results to append now, in call order (calls still waiting are left out). */
  results: ToolResultBlock[];
  /** Approvals this turn now waits on; empty when every call was answered. */
  paused: ApprovalView[];
  /** Questions to users this turn now waits on (nobody could be asked); empty when none. */
  asked: QuestionView[];
}

/** What the calls of one response wait on, gathered as they end. */
interface Waits {
  paused: ApprovalView[];
  asked: QuestionView[];
}

function addWaits(waits: Waits, outcome: PausedOnApprovals): void {
  waits.paused.push(...outcome.requests);
  if (outcome.questions) waits.asked.push(...outcome.questions);
}

export interface ToolPhaseInput {
  turn: TurnContext;
  agent: AgentParticipant;
  toolUses: readonly ToolUseBlock[];
  tools: ReadonlyMap<string, Tool>;
  defaultTimeoutMs: number;
  services: ToolPhaseServices;
  workspaceRoot: string | undefined;
  /** The agent's context settings: eviction of large results follows them. */
  context: ContextSettings;
}

/**
 * Eviction of large results happens here, not in the executor: every result
 * that reaches the log passes through the tool phase (calls run now, delegates
 * resumed, approvals this agent must answer), and only here are the agent (its
 * threshold) and the session (its artifacts) known; the executor stays one
 * per Legion, agent-blind. It hands the executor the step as `finish`, so that
 * `tool:result` events carry what the model sees.
 */
function evictionFor(input: ToolPhaseInput): ToolResultEviction {
  return new ToolResultEviction({
    artifacts: input.turn.session.artifacts,
    evictAboveTokens: input.context.evictAboveTokens,
    artifactMaxBytes: input.context.artifactMaxBytes,
    canReadArtifacts: input.tools.has(ARTIFACT_READ_TOOL_NAME),
  });
}

/**
 * The three phases of one model response: check every call (visibility,
 * input, policy), ask for all approvals it needs in one batch, then run what
 * may run. Every tool_use gets a result — refusals and rejections included —
 * except calls waiting on an approval, which pause the turn.
 */
export async function runToolPhase(input: ToolPhaseInput & { preflight: ReadonlyMap<string, string> }): Promise<ToolPhaseResult> {
  const { turn, agent, toolUses, tools, services } = input;
  const context = toolContext(turn, agent, input.workspaceRoot, services.auth, input.context);
  const eviction = evictionFor(input);
  const settled = new Map<string, ToolResultBlock>();
  const ready: PreparedCall[] = [];
  const asking: Array<ApprovalCall & { call: PreparedCall }> = [];
  // Grants ("always allow") are read only when a call would otherwise ask: most calls never need them.
  let grants: ReadonlySet<string> | undefined;
  for (const toolUse of toolUses) {
    const prepared = services.executor.prepare(toolUse, tools, input.preflight.get(toolUse.id));
    if (!prepared.ok) {
      settled.set(toolUse.id, services.executor.refuse(toolUse, prepared.error, context, prepared.refusal));
      continue;
    }
    let decision = services.auth.evaluate({ participant: agent, tool: prepared.call.tool, input: prepared.call.input });
    if (decision.mode === 'requires_approval') {
      grants ??= await turn.session.approvals.grants(agent.id);
      if (grants.has(toolUse.name))
        decision = services.auth.evaluate({ participant: agent, tool: prepared.call.tool, input: prepared.call.input, grants });
    }
    if (decision.mode === 'deny')
      settled.set(
        toolUse.id,
        services.executor.refuse(toolUse, `Denied: ${toolUse.name} is not allowed here (${decision.reason}).`, context, 'denied'),
      );
    else if (decision.mode === 'requires_approval')
      asking.push({
        toolUse,
        reason: decision.reason,
        personOnly: decision.personOnly,
        sandbox: prepared.call.tool.sandbox?.(),
        call: prepared.call,
      });
    else ready.push(prepared.call);
  }
  const waits: Waits = { paused: [], asked: [] };
  if (asking.length > 0) {
    // Requests go to the session's approvals log, which no lease fences: a turn that lost its lease asks nothing.
    await turn.conversation.confirmLease();
    const outcomes = await services.gate.decide(asking, {
      requester: agent.id,
      frames: turn.frames,
      conversationId: turn.conversation.ref.conversationId,
      sessionId: turn.conversation.ref.sessionId,
      store: turn.session.approvals,
      signal: turn.signal,
      trace: turn.trace,
    });
    for (const { toolUse, call } of asking) {
      const outcome = outcomes.get(toolUse.id);
      if (outcome?.status === 'approved') ready.push(call);
      else if (outcome?.status === 'pending') waits.paused.push(outcome.request);
      else
        settled.set(
          toolUse.id,
          services.executor.refuse(
            toolUse,
            `Rejected: ${outcome?.status === 'rejected' ? outcome.reason : 'no decision'}`,
            context,
            'rejected',
          ),
        );
    }
    // Keep the model's order for execution, whatever order approvals came in.
    ready.sort((a, b) => toolUses.indexOf(a.toolUse) - toolUses.indexOf(b.toolUse));
  }
  await runReady(ready, input, context, settled, waits, eviction);
  return { results: toolUses.flatMap((toolUse) => settled.get(toolUse.id) ?? []), ...waits };
}

/**
 * Continues a paused response from the log: approved calls run, rejected ones
 * get their reason, delegates that were paused are resumed first; calls still
 * waiting keep the turn paused.
 */
export async function resumeToolPhase(input: ToolPhaseInput): Promise<ToolPhaseResult> {
  const { turn, agent, toolUses, tools, services } = input;
  const context = toolContext(turn, agent, input.workspaceRoot, services.auth, input.context);
  const eviction = evictionFor(input);
  const store = await turn.session.approvals.state();
  const conversationId = turn.conversation.ref.conversationId;
  const settled = new Map<string, ToolResultBlock>();
  const ready: PreparedCall[] = [];
  const waits: Waits = { paused: [], asked: [] };
  /** Read only when some call is neither an approval's nor a paused delegate's. */
  let questions: QuestionState | undefined;
  for (const toolUse of toolUses) {
    const request = store.forToolUse(conversationId, toolUse.id);
    if (request) {
      const decision = store.decision(request.id);
      if (decision) turn.trace?.approvalDecided(decision);
      if (!decision) {
        waits.paused.push(store.view(request.id)!);
      } else if (decision.decision === 'rejected') {
        settled.set(
          toolUse.id,
          services.executor.refuse(
            toolUse,
            `Rejected by ${decision.decidedBy}${decision.reason ? `: ${decision.reason}` : ''}`,
            context,
            'rejected',
          ),
        );
      } else {
        const prepared = services.executor.prepare(toolUse, tools);
        if (prepared.ok) ready.push(prepared.call);
        else settled.set(toolUse.id, services.executor.refuse(toolUse, prepared.error, context, prepared.refusal));
      }
      continue;
    }
    const delegate = store.delegateOf(conversationId, toolUse.id);
    if (delegate) {
      const outcome = await resumeWaiting(turn, agent.id, toolUse, delegate, input.workspaceRoot);
      if (outcome.status === 'paused') addWaits(waits, outcome);
      // A resumed delegate's reply is a communicate result like any other: evicted if large.
      else settled.set(toolUse.id, await eviction.apply(outcome.block));
      continue;
    }
    // A question to a user whose process ended, answered since (session.answerQuestion): the answer is the reply.
    questions ??= await turn.session.questions.state();
    const asked = questions.delegateOf(conversationId, toolUse.id);
    // One nobody has answered yet (the turn paused on it): the turn stays paused on it.
    const open = asked ? undefined : questions.questionFor(conversationId, toolUse.id);
    if (open?.status === 'pending') {
      waits.asked.push(open);
      continue;
    }
    if (asked) {
      const outcome = await resumeWaiting(turn, agent.id, toolUse, asked);
      if (outcome.status === 'paused') addWaits(waits, outcome);
      else settled.set(toolUse.id, await eviction.apply(outcome.block));
      continue;
    }
    settled.set(
      toolUse.id,
      services.executor.refuse(
        toolUse,
        `interrupted: Legion stopped while ${toolUse.name} was pending, so it did not run. Call it again if it is still needed.`,
        context,
        'interrupted',
      ),
    );
  }
  await runReady(ready, input, context, settled, waits, eviction);
  return { results: toolUses.flatMap((toolUse) => settled.get(toolUse.id) ?? []), ...waits };
}

/**
 * Resumes the turn a communicate call of this response waits on (a delegate paused on approvals, a user who answered since), in an
 * `execute_tool` span of its own. An isolated delegate's frame names its worktree again (found by the call that made it), so the
 * resumed turn works in that tree, and its reply comes back with its change for review, as the first run's would have.
 */
async function resumeWaiting(
  turn: TurnContext,
  agentId: string,
  toolUse: ToolUseBlock,
  waitedOn: string,
  workspaceRoot?: string,
): Promise<CallOutcome> {
  const span = turn.trace?.tool(toolUse);
  const traceparent = span?.traceparent();
  const worktrees = workspaceRoot === undefined ? undefined : new Worktrees(workspaceRoot);
  const worktree = worktrees?.forToolUse(turn.session.id, turn.conversation.ref.conversationId, toolUse.id);
  const frame: DelegationFrame = {
    participantId: agentId,
    conversationId: turn.conversation.ref.conversationId,
    toolUseId: toolUse.id,
    ...(traceparent ? { trace: traceparent } : {}),
    ...(worktree ? { worktree: worktree.id } : {}),
  };
  const result = await turn.session.resumeConversation(waitedOn, [...turn.frames, frame]);
  const outcome =
    worktrees && worktree && result.status === 'success'
      ? {
          status: 'done' as const,
          block: toResultBlock(
            toolUse.id,
            await reviewResult({
              worktrees,
              worktreeId: worktree.id,
              reply: result.reply,
              agentId: worktree.agentId,
              callerId: agentId,
              conversation: turn.conversation.ref,
              toolUseId: toolUse.id,
              events: turn.events,
            }),
          ),
        }
      : fromTurnResult(toolUse, result, agentId);
  span?.end(
    outcome.status === 'paused'
      ? { paused: outcome.requests.length + (outcome.questions?.length ?? 0) }
      : { isError: outcome.block.isError === true, content: outcome.block.content },
  );
  return outcome;
}

async function runReady(
  ready: PreparedCall[],
  input: ToolPhaseInput,
  context: CallerContext,
  settled: Map<string, ToolResultBlock>,
  waits: Waits,
  eviction: ToolResultEviction,
): Promise<void> {
  if (ready.length === 0) return;
  const outcomes = await input.services.executor.run(ready, context, input.defaultTimeoutMs, (block) => eviction.apply(block));
  for (const call of ready) {
    const outcome = approvalFor(outcomes.get(call.toolUse.id)!, call.toolUse, input.agent.id);
    if (outcome.status === 'paused') addWaits(waits, outcome);
    else settled.set(call.toolUse.id, outcome.block);
  }
}

/**
 * A delegate's pause is this agent's to answer (a result it can act on) or travels further up (this
 * turn pauses too); one on a user's answer always travels up: only a person answers it.
 */
function approvalFor(outcome: CallOutcome, toolUse: ToolUseBlock, agentId: string): CallOutcome {
  if (outcome.status === 'done') return outcome;
  if ((outcome.questions?.length ?? 0) > 0) return outcome;
  if (outcome.requests.every((request) => request.approver === agentId))
    return { status: 'done', block: toResultBlock(toolUse.id, { status: 'success', data: describeApprovalRequired(outcome.requests) }) };
  return outcome;
}

function fromTurnResult(toolUse: ToolUseBlock, result: TurnResult, agentId: string): CallOutcome {
  if (result.status === 'success') {
    const cut = result.truncated
      ? `\n[${result.conversationId}: this reply was cut off at the model's output limit; ask for the rest if you need it]`
      : '';
    return { status: 'done', block: toResultBlock(toolUse.id, { status: 'success', data: `${result.reply}${cut}` }) };
  }
  if (result.status === 'error') return { status: 'done', block: toResultBlock(toolUse.id, { status: 'error', error: result.error }) };
  const paused: PausedOnApprovals = {
    status: 'paused',
    requests: result.requests,
    ...(result.questions?.length ? { questions: result.questions } : {}),
  };
  return approvalFor(paused, toolUse, agentId);
}

function toolContext(
  turn: TurnContext,
  agent: AgentParticipant,
  workspaceRoot: string | undefined,
  auth: AuthEngine,
  settings: ContextSettings,
): CallerContext {
  return {
    resultTokenBudget: settings.evictAboveTokens,
    callerId: agent.id,
    frames: turn.frames,
    conversation: turn.conversation.ref,
    session: turn.session,
    signal: turn.signal,
    events: turn.events,
    // The one place a turn's root is decided: an isolated delegation's turn (and those below it) sees only its worktree.
    workspaceRoot: turnWorkspaceRoot(turn.frames, workspaceRoot),
    editorFiles: worktreeOfFrames(turn.frames) === undefined ? turn.session.editorFiles : undefined,
    trace: turn.trace,
    visible: entryVisibility(auth, agent),
  };
}
