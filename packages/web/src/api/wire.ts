// DRAFT of the wire types, written from /work/notes/web-contract.md until the server commits
// `@legion-collective/server/wire`; then this file becomes `export type … from` that subpath.
export type ParticipantStateName = 'idle' | 'thinking' | 'tool' | 'approval' | 'user';

export interface Participant {
  id: string;
  type: 'user' | 'agent' | 'mock';
  name?: string;
  description?: string;
  useFor?: string;
  model?: { provider: string; model: string };
  tools: string[];
  delegatesTo: string[];
  state: ParticipantStateName;
  detail?: string;
}

export interface Workspace {
  root: string;
  entryAgent: string;
  version: string;
  sessionId: string | null;
}

export interface Totals {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number | null;
  calls: number;
}

export interface SessionSummary {
  id: string;
  createdAt: string;
  updatedAt: string;
  title?: string;
  conversations: number;
  messages: number;
  costUsd: number | null;
  tokens: number;
}

export interface ConversationSummary {
  id: string;
  initiator: string;
  responder: string;
  name?: string;
  messages: number;
  lastAt?: string;
}

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; toolUseId: string; content: string; isError?: boolean };

export interface WireMessage {
  id: string;
  role: 'user' | 'assistant';
  content: ContentBlock[];
  at: string;
  model?: string;
  medium?: string;
  author: string;
}

export interface ApprovalView {
  id: string;
  sessionId: string;
  conversationId: string;
  batchId?: string;
  requester: string;
  approver: string;
  tool: string;
  input: unknown;
  reason?: string;
  chain: string[];
  requestedAt?: string;
  status: 'pending' | 'approved' | 'rejected';
  decidedBy?: string;
  decisionReason?: string;
  decidedAt?: string;
}

export interface WireQuestion {
  id: string;
  sessionId: string;
  conversationId: string;
  from: string;
  chain: string[];
  text: string;
  askedAt: string;
}

export interface UsageView {
  total: Totals;
  participants: Array<{ id: string; own: Totals; withDelegates: Totals }>;
}

export interface SearchHit {
  sessionId: string;
  conversationId: string;
  messageId: string;
  author: string;
  at: string;
  snippet: string;
}

interface Ref {
  sessionId: string;
  conversationId: string;
  initiator: string;
  responder: string;
  name?: string;
}
export type ToolUse = { type: 'tool_use'; id: string; name: string; input: unknown };
export type ToolResult = { type: 'tool_result'; toolUseId: string; content: string; isError?: boolean };
export type Usage = { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number };

/** The `data` of an `event: legion` SSE message: one core event. */
export type WireEvent = { seq: number } & (
  | ({ type: 'message:sent'; message: WireMessage | Omit<WireMessage, 'author'>; author: string; remote?: true } & Ref)
  | ({ type: 'turn:start'; participantId: string; chain: string[]; messageId?: string } & Ref)
  | ({ type: 'turn:end'; participantId: string; chain: string[]; status: 'success' | 'error' | 'paused'; reply?: string; error?: string; durationMs: number } & Ref)
  | ({ type: 'text:delta'; participantId: string; text: string } & Ref)
  | ({ type: 'tool:call'; participantId: string; toolUse: ToolUse } & Ref)
  | ({ type: 'tool:result'; participantId: string; toolUse: ToolUse; result: ToolResult; durationMs: number } & Ref)
  | ({ type: 'usage:report'; participantId: string; chain: string[]; usage: Usage; provider: string; model: string; costUsd: number | null } & Ref)
  | { type: 'approval:requested'; sessionId: string; conversationId: string; requestId: string; batchId: string; requester: string; approver: string; tool: string; toolUseId: string; input: unknown; reason: string; chain: string[] }
  | { type: 'approval:decided'; sessionId: string; conversationId: string; requestId: string; requester: string; approver: string; tool: string; decision: 'approved' | 'rejected'; decidedBy: string; reason?: string }
  | { type: 'question:asked'; sessionId: string; conversationId: string; questionId: string; from: string; chain: string[]; text: string }
  | { type: 'question:answered'; sessionId: string; questionId: string }
  | { type: 'session:created'; sessionId: string; title?: string; createdAt: string }
  | { type: 'error:raised'; scope: string; message: string; sessionId?: string }
  | { type: 'other'; sessionId?: string }
);

export interface StateEvent {
  participantId: string;
  state: ParticipantStateName;
  detail?: string;
}
