import type { Message, ToolResultBlock, ToolUseBlock, Usage } from '../message.js';

export interface ConversationRef {
  sessionId: string;
  conversationId: string;
  initiator: string;
  responder: string;
  name?: string | undefined;
}

/** Every event Legion emits, by name. Names are `noun:verb`; lifecycles end in `end`. */
export interface LegionEvents {
  'message:sent': ConversationRef & { message: Message; author: string };
  'turn:start': ConversationRef & { participantId: string; chain: readonly string[] };
  'turn:end': ConversationRef & {
    participantId: string;
    chain: readonly string[];
    status: 'success' | 'error' | 'approval_required';
    reply?: string | undefined;
    error?: string | undefined;
    durationMs: number;
  };
  'text:delta': ConversationRef & { participantId: string; text: string };
  'tool:call': ConversationRef & { participantId: string; toolUse: ToolUseBlock };
  'tool:result': ConversationRef & { participantId: string; toolUse: ToolUseBlock; result: ToolResultBlock; durationMs: number };
  'usage:report': ConversationRef & { participantId: string; chain: readonly string[]; usage: Usage; provider: string; model: string; costUsd: number | null };
  'error:raised': { scope: string; message: string; code?: string | undefined; participantId?: string | undefined; sessionId?: string | undefined };
  'storage:warning': { path: string; offset: number; problem: string };
  /** A model call failed and will be tried again after `waitMs` (the provider's `retry-after`, or backoff). */
  'provider:retry': ConversationRef & { participantId: string; provider: string; model: string; attempt: number; of: number; waitMs: number; reason: string; askedByProvider: boolean };
  /** A tool became available (registered directly or listed by a tool provider). */
  'tool:register': { name: string; providerId: string };
  /** A tool went away (its disposer ran, its provider dropped it or was disposed). */
  'tool:unregister': { name: string; providerId: string };
}

export type LegionEventName = keyof LegionEvents;
export type LegionEvent = { [Name in LegionEventName]: { type: Name } & LegionEvents[Name] }[LegionEventName];
