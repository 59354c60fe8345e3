import type {
  ApprovalView,
  ConversationSummary,
  FileClaim,
  FileChange,
  Participant,
  RefusedWrite,
  SearchHit,
  SessionSummary,
  UsageView,
  WireMessage,
  WireQuestion,
  Workspace,
} from './wire.js';

/** A refusal of the server, with its `{ error: { code, message } }` (the message names the fix). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

// The cookie `legion_token` (set when the app was opened with ?token=) authorizes every request.
async function request<Result>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Result> {
  const response = await fetch(`/api${path}`, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const parsed: unknown = text === '' ? null : JSON.parse(text);
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(
      response.status,
      error?.code ?? 'http_error',
      error?.message ?? `${method} /api${path} failed with HTTP ${response.status}`,
    );
  }
  return parsed as Result;
}

const query = (parameters: Record<string, string | undefined>): string => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(parameters)) if (value !== undefined) search.set(key, value);
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
};
const segment = encodeURIComponent;

export const api = {
  workspace: () => request<Workspace>('GET', '/workspace'),
  claims: () => request<{ claims: FileClaim[] }>('GET', '/claims').then((body) => body.claims),
  releaseClaim: (path: string) => request<{ released: FileClaim }>('POST', '/claims/release', { path }),
  participants: () => request<{ participants: Participant[] }>('GET', '/participants').then((body) => body.participants),
  /** A page of sessions, most recently active first; `next` (when more follow) asks for the page after. */
  sessionPage: (after?: string) => request<{ sessions: SessionSummary[]; next?: string }>('GET', `/sessions${query({ after })}`),
  createSession: () => request<{ id: string }>('POST', '/sessions', {}),
  session: (id: string) => request<{ session: SessionSummary; conversations: ConversationSummary[] }>('GET', `/sessions/${segment(id)}`),
  messages: (sessionId: string, conversationId: string, options: { before?: string; limit?: number } = {}) =>
    request<{ messages: WireMessage[]; more: boolean }>(
      'GET',
      `/sessions/${segment(sessionId)}/conversations/${segment(conversationId)}/messages${query({ before: options.before, limit: options.limit?.toString() })}`,
    ),
  /** The reply streaming in a conversation now, as far as it came, and the event `seq` it holds every delta up to. */
  streamText: (sessionId: string, conversationId: string) =>
    request<{ participantId?: string; text: string; seq: number }>(
      'GET',
      `/sessions/${segment(sessionId)}/conversations/${segment(conversationId)}/stream`,
    ),
  send: (sessionId: string, body: { text: string; to?: string; conversation?: string }) =>
    request<{ accepted: true; conversationId: string }>('POST', `/sessions/${segment(sessionId)}/messages`, body),
  cancel: (sessionId: string, conversationId?: string) =>
    request<{ cancelled: number }>('POST', `/sessions/${segment(sessionId)}/cancel`, conversationId ? { conversationId } : {}),
  approvals: (sessionId: string) =>
    request<{ approvals: ApprovalView[] }>('GET', `/sessions/${segment(sessionId)}/approvals?status=all`).then((body) => body.approvals),
  answerApprovals: (
    sessionId: string,
    answers: Array<{ id: string; decision: 'approve' | 'reject'; reason?: string; remember?: 'once' | 'session' | 'always' }>,
  ) => request<{ status: 'answered' }>('POST', `/sessions/${segment(sessionId)}/approvals`, { answers }),
  fileChange: (sessionId: string, approvalId: string) =>
    request<{ fileChange: FileChange | null }>('GET', `/sessions/${segment(sessionId)}/approvals/${segment(approvalId)}/file-change`).then(
      (body) => body.fileChange,
    ),
  questions: (sessionId: string) =>
    request<{ questions: WireQuestion[] }>('GET', `/questions${query({ session: sessionId })}`).then((body) => body.questions),
  answerQuestion: (id: string, text: string) => request<{ status: 'answered' }>('POST', `/questions/${segment(id)}/answer`, { text }),
  usage: (sessionId: string) => request<UsageView>('GET', `/sessions/${segment(sessionId)}/usage`),
  conflicts: (sessionId: string) =>
    request<{ conflicts: RefusedWrite[] }>('GET', `/sessions/${segment(sessionId)}/conflicts`).then((body) => body.conflicts),
  search: (q: string, sessionId?: string) =>
    request<{ hits: SearchHit[] }>('GET', `/search${query({ q, session: sessionId })}`).then((body) => body.hits),
};
