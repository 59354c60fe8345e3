import type { Message, ToolUseBlock } from '../../kernel/index.js';
import type { LLMProvider } from '../../model/index.js';
import type { MessageWork, RuntimeOutcome, TurnContext } from '../../session/index.js';
import type { AgentLoopStages } from './agent-loop.js';
import { overSessionBudget } from './loop-fast-paths.js';
import { callModel, type AnsweredCall, type ModelCall, type ModelCallInput } from './model-call.js';
import { recordReply } from './record-reply.js';
import { refusedReply } from './reply-guards.js';
import { resumeToolStep, runToolStep, type ToolStepInput } from './tool-step.js';
import type { TurnSettings } from './turn-settings.js';
import type { UsageRecorder } from './usage-recorder.js';

/** What one turn's stages are bound to; made once per turn. */
export interface AgentTurnParts {
  turn: TurnContext;
  settings: TurnSettings;
  provider: LLMProvider;
  usage: UsageRecorder;
  /** The message's whole delegation tree shares one count (limits.maxModelCallsPerMessage): read from memory, never the disk, per step. */
  work: MessageWork;
  /** What each model call is made with. */
  call: ModelCallInput;
  /** What each tool step is run with. */
  tools: ToolStepInput;
}

/** One agent turn's stages, bound to the turn: what `runAgentLoop` runs. */
export class AgentTurn implements AgentLoopStages {
  private readonly turn: TurnContext;
  private readonly settings: TurnSettings;
  private readonly provider: LLMProvider;
  private readonly usage: UsageRecorder;
  private readonly work: MessageWork;
  private readonly call: ModelCallInput;
  private readonly tools: ToolStepInput;

  constructor(parts: AgentTurnParts) {
    this.turn = parts.turn;
    this.settings = parts.settings;
    this.provider = parts.provider;
    this.usage = parts.usage;
    this.work = parts.work;
    this.call = parts.call;
    this.tools = parts.tools;
  }

  resumeTools(): Promise<RuntimeOutcome | undefined> {
    return resumeToolStep(this.tools);
  }

  admit(): RuntimeOutcome | undefined | Promise<RuntimeOutcome | undefined> {
    const { agent } = this.settings;
    if (this.turn.signal.aborted) return { status: 'error', code: 'cancelled', error: `${agent.id} was cancelled.` };
    const overBudget = overSessionBudget(this.turn, this.settings);
    return overBudget ? overBudget.then((refused) => refused ?? this.countModelCall()) : this.countModelCall();
  }

  callModel(): Promise<ModelCall> {
    return callModel(this.call);
  }

  guardReply(call: AnsweredCall): RuntimeOutcome | undefined {
    const refused = refusedReply(call.response, this.settings.agent.id, this.provider, this.settings.limits.maxReplyBytes);
    if (refused) call.chat?.answered(call.response, call.answeredAt, undefined);
    return refused;
  }

  recordReply(call: AnsweredCall): Promise<Message> {
    return recordReply(this.turn, this.settings.agent.id, this.provider, this.usage, call);
  }

  runTools(call: AnsweredCall, toolUses: readonly ToolUseBlock[]): Promise<RuntimeOutcome | undefined> {
    return runToolStep(this.tools, call.response, toolUses);
  }

  /** Counts the model call against the message's work, or refuses it past `maxModelCallsPerMessage`. */
  private countModelCall(): RuntimeOutcome | undefined {
    const overWork = this.work.startModelCall(this.settings.agent.id, this.settings.limits);
    return overWork ? { status: 'error', code: overWork.code, error: overWork.message } : undefined;
  }
}
