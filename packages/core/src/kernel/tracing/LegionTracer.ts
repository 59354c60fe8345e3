import type { Attributes, Context, Span } from '@opentelemetry/api';
import type { LegionErrorCode } from '../error-codes.js';
import type { ContentBlock, Message, ToolUseBlock, Usage } from '../message.js';
import { registeredApi, type OtelApi } from './otel-api.js';
import { formatTraceparent, parseTraceparent } from './traceparent.js';

/**
 * OpenTelemetry spans of Legion's work, named and attributed after the GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/): `invoke_agent <participant>` per turn,
 * `chat <model>` per model call and `execute_tool <tool>` per tool call under it. They go through
 * `@opentelemetry/api`, which is not even loaded until the application registers an SDK: until
 * then a turn costs one look at the API's global; a turn the SDK does not record (sampled out)
 * costs one no-op span, and its model and tool calls none.
 *
 * Parents are passed explicitly (the delegation frame's `trace`), not through the API's active
 * context: that needs a context manager the application may not have registered, and a frame
 * carries its parent to a resume in another process as well.
 */
export interface TracingOptions {
  /**
   * Message text, tool arguments and results in spans (`gen_ai.input.messages`, `gen_ai.output.messages`,
   * `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`). Off unless configured: they may hold
   * secrets and personal data, and a trace backend is often read by more people than the workspace.
   */
  captureContent: boolean;
}

export const TRACER_NAME = '@legion-collective/core';

export interface TurnStart {
  participantId: string;
  /** `agent`, `mock` or `user`. */
  participantType: string;
  participantName?: string | undefined;
  sessionId: string;
  conversationId: string;
  /** The `traceparent` of the span that waits on this turn (the caller's communicate call); none: the application's active span, or a new trace. */
  parent: string | undefined;
  /** A turn that paused on approvals continues. */
  resumed: boolean;
  /** The incoming message's text (kept only with content capture). */
  input?: string | undefined;
}

export class LegionTracer {
  constructor(readonly options: TracingOptions) {}

  /** The turn's span; undefined while no SDK is registered. */
  startTurn(start: TurnStart): TurnTrace | undefined {
    const api = registeredApi();
    if (!api) return undefined;
    // Asked per turn, not kept: an SDK registered (or replaced) later is the one that records.
    const tracer = api.trace.getTracer(TRACER_NAME);
    const remote = parseTraceparent(start.parent);
    const parent = remote ? api.trace.setSpanContext(api.ROOT_CONTEXT, remote) : api.context.active();
    const span = tracer.startSpan(`invoke_agent ${start.participantId}`, { kind: api.SpanKind.INTERNAL }, parent);
    if (!span.isRecording()) return new TurnTrace(api, span, start.conversationId, this.options, false);
    const attributes: Attributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': start.participantId,
      'gen_ai.agent.name': start.participantName ?? start.participantId,
      'gen_ai.conversation.id': start.conversationId,
      'legion.session.id': start.sessionId,
      'legion.participant.type': start.participantType,
      'legion.turn.resumed': start.resumed,
    };
    if (this.options.captureContent && start.input !== undefined)
      attributes['gen_ai.input.messages'] = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: start.input }] }]);
    span.setAttributes(attributes);
    return new TurnTrace(api, span, start.conversationId, this.options, true);
  }
}

export interface ChatStart {
  provider: string;
  model: string;
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  system: string;
  messages: readonly Message[];
}

/** A decision on an approval, as the approvals log holds it. */
export interface ApprovalDecisionTrace {
  requestId: string;
  decision: 'approved' | 'rejected';
  decidedBy: string;
  medium?: string | undefined;
}

/** One turn's span and the spans of its model and tool calls. */
export class TurnTrace {
  private parentOfChildren: Context | undefined;
  private ended = false;

  constructor(
    private readonly api: typeof OtelApi,
    readonly span: Span,
    private readonly conversationId: string,
    private readonly options: TracingOptions,
    /** Whether an SDK records this turn; if not, its model and tool calls make no spans at all. */
    readonly recording: boolean,
  ) {}

  /** This turn's span as a `traceparent`: undefined without an SDK. */
  traceparent(): string | undefined {
    return formatTraceparent(this.span.spanContext());
  }

  /** Runs `work` with this turn's span active, so spans others make meanwhile (an SDK's, an MCP client's) nest under it. */
  run<T>(work: () => T): T {
    return runIn(this.api, this.span, work);
  }

  chat(start: ChatStart): ChatTrace | undefined {
    if (!this.recording) return undefined;
    const span = this.api.trace.getTracer(TRACER_NAME).startSpan(`chat ${start.model}`, { kind: this.api.SpanKind.CLIENT }, this.context());
    const attributes: Attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': start.provider,
      'gen_ai.request.model': start.model,
      'gen_ai.conversation.id': this.conversationId,
    };
    if (start.maxTokens !== undefined) attributes['gen_ai.request.max_tokens'] = start.maxTokens;
    if (start.temperature !== undefined) attributes['gen_ai.request.temperature'] = start.temperature;
    if (this.options.captureContent) {
      attributes['gen_ai.system_instructions'] = JSON.stringify([{ type: 'text', content: start.system }]);
      attributes['gen_ai.input.messages'] = JSON.stringify(
        start.messages.map((message) => ({ role: message.role, parts: message.content.map(partOf) })),
      );
    }
    span.setAttributes(attributes);
    return new ChatTrace(this.api, span, this.options);
  }

  tool(toolUse: ToolUseBlock): ToolTrace | undefined {
    if (!this.recording) return undefined;
    const span = this.api.trace
      .getTracer(TRACER_NAME)
      .startSpan(`execute_tool ${toolUse.name}`, { kind: this.api.SpanKind.INTERNAL }, this.context());
    const attributes: Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': toolUse.name,
      'gen_ai.tool.call.id': toolUse.id,
      'gen_ai.tool.type': 'function',
      'gen_ai.conversation.id': this.conversationId,
    };
    if (this.options.captureContent) attributes['gen_ai.tool.call.arguments'] = JSON.stringify(toolUse.input);
    span.setAttributes(attributes);
    return new ToolTrace(this.api, span, this.options);
  }

  /** A call waits for someone's approval (recorded durably; the turn may pause on it). */
  approvalRequested(request: { id: string; tool: string; toolUseId: string; requester: string; approver: string }): void {
    if (!this.recording) return;
    this.span.addEvent('legion.approval.requested', {
      'legion.approval.id': request.id,
      'gen_ai.tool.name': request.tool,
      'gen_ai.tool.call.id': request.toolUseId,
      'legion.approval.requester': request.requester,
      'legion.approval.approver': request.approver,
    });
  }

  /** The one decision an approval got: who decided, and through which surface. */
  approvalDecided(decision: ApprovalDecisionTrace): void {
    if (!this.recording) return;
    this.span.addEvent('legion.approval.decided', {
      'legion.approval.id': decision.requestId,
      'legion.approval.decision': decision.decision,
      'legion.approval.decided_by': decision.decidedBy,
      ...(decision.medium !== undefined ? { 'legion.approval.medium': decision.medium } : {}),
    });
  }

  end(
    result:
      | { status: 'success'; reply: string }
      | { status: 'error'; code: LegionErrorCode; error: string }
      | { status: 'paused'; requests: readonly unknown[] },
  ): void {
    if (this.ended) return;
    this.ended = true;
    if (this.recording) {
      this.span.setAttribute('legion.turn.status', result.status);
      if (result.status === 'error') fail(this.api, this.span, result.code, this.options.captureContent ? result.error : undefined);
      else if (result.status === 'paused') this.span.setAttribute('legion.turn.pending_approvals', result.requests.length);
      else if (this.options.captureContent)
        this.span.setAttribute(
          'gen_ai.output.messages',
          JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: result.reply }] }]),
        );
    }
    this.span.end();
  }

  private context(): Context {
    return (this.parentOfChildren ??= this.api.trace.setSpan(this.api.ROOT_CONTEXT, this.span));
  }
}

export class ChatTrace {
  constructor(
    private readonly api: typeof OtelApi,
    readonly span: Span,
    private readonly options: TracingOptions,
  ) {}

  /** Runs the model call with this span active: the provider SDK's own spans (the Anthropic SDK makes one per API call) nest under it. */
  run<T>(work: () => T): T {
    return runIn(this.api, this.span, work);
  }

  /** The model answered; `endTime` is when (the span ends later, once its cost is known). */
  answered(
    response: { content: readonly ContentBlock[]; usage?: Usage | undefined; finishReason: string },
    endTime: number,
    costUsd: number | null | undefined,
  ): void {
    const attributes: Attributes = { 'gen_ai.response.finish_reasons': [response.finishReason] };
    const usage = response.usage;
    if (usage) {
      attributes['gen_ai.usage.input_tokens'] = usage.inputTokens;
      attributes['gen_ai.usage.output_tokens'] = usage.outputTokens;
      if (usage.cacheReadTokens !== undefined) attributes['gen_ai.usage.cache_read.input_tokens'] = usage.cacheReadTokens;
      if (usage.cacheWriteTokens !== undefined) attributes['gen_ai.usage.cache_creation.input_tokens'] = usage.cacheWriteTokens;
    }
    // Legion's own attribute: the conventions have no cost. Absent when no price is known.
    if (costUsd !== undefined && costUsd !== null) attributes['legion.usage.cost_usd'] = costUsd;
    if (this.options.captureContent)
      attributes['gen_ai.output.messages'] = JSON.stringify([
        { role: 'assistant', parts: response.content.map(partOf), finish_reason: response.finishReason },
      ]);
    this.span.setAttributes(attributes);
    this.span.end(endTime);
  }

  failed(code: LegionErrorCode, message: string): void {
    fail(this.api, this.span, code, this.options.captureContent ? message : undefined);
    this.span.end();
  }
}

export class ToolTrace {
  constructor(
    private readonly api: typeof OtelApi,
    readonly span: Span,
    private readonly options: TracingOptions,
  ) {}

  /** The span as a `traceparent`: what a communicate call hands the turn it waits on. */
  traceparent(): string | undefined {
    return formatTraceparent(this.span.spanContext());
  }

  /** Runs the tool with this span active: spans it causes (an MCP client's, an HTTP request's) nest under it. */
  run<T>(work: () => T): T {
    return runIn(this.api, this.span, work);
  }

  /** The call never ran: `legion.tool.decision` says why (denied, rejected, invalid, interrupted), the status is an error. */
  refused(decision: string, content: string): void {
    this.span.setAttribute('legion.tool.decision', decision);
    fail(this.api, this.span, `tool_${decision}`, this.options.captureContent ? content : undefined);
    this.span.end();
  }

  end(outcome: { isError: boolean; content: string } | { paused: number }): void {
    if ('paused' in outcome) this.span.setAttribute('legion.tool.pending_approvals', outcome.paused);
    else {
      if (outcome.isError) fail(this.api, this.span, 'tool_error', this.options.captureContent ? outcome.content : undefined);
      if (this.options.captureContent) this.span.setAttribute('gen_ai.tool.call.result', outcome.content);
    }
    this.span.end();
  }
}

/**
 * Active only where the application registered a context manager (`legion` does); the parents
 * of Legion's own spans are passed explicitly and need none.
 */
function runIn<T>(api: typeof OtelApi, span: Span, work: () => T): T {
  return api.context.with(api.trace.setSpan(api.context.active(), span), work);
}

/** The error's text is content too (it can quote files, commands, a model's words): without capture, the status says only its kind. */
function fail(api: typeof OtelApi, span: Span, code: string, description: string | undefined): void {
  span.setAttribute('error.type', code);
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: description ?? code });
}

function partOf(block: ContentBlock): Record<string, unknown> {
  if (block.type === 'text') return { type: 'text', content: block.text };
  if (block.type === 'tool_use') return { type: 'tool_call', id: block.id, name: block.name, arguments: block.input };
  return { type: 'tool_call_response', id: block.toolUseId, response: block.content };
}
