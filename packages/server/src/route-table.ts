import { z } from 'zod';
import { ApprovalAnswerRequestSchema, ApprovalListResponseSchema, FileChangeResponseSchema } from './wire/approvals.js';
import { AnsweredResponseSchema } from './wire/errors.js';
import {
  ClaimListResponseSchema,
  ClaimReleaseRequestSchema,
  ClaimReleaseResponseSchema,
  SessionConflictsResponseSchema,
} from './wire/claims.js';
import {
  CancelRequestSchema,
  CancelResponseSchema,
  MessagesPageResponseSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamTextResponseSchema,
} from './wire/messages.js';
import { ParticipantListResponseSchema } from './wire/participants.js';
import { QuestionAnswerRequestSchema, QuestionListResponseSchema } from './wire/questions.js';
import { SearchResponseSchema } from './wire/search.js';
import {
  CreateSessionRequestSchema,
  CreateSessionResponseSchema,
  SessionDetailResponseSchema,
  SessionListResponseSchema,
} from './wire/sessions.js';
import { AgentToolsResponseSchema } from './wire/tools.js';
import { SessionUsageResponseSchema } from './wire/usage.js';
import { ConfigViewSchema, WorkspaceInfoSchema } from './wire/workspace.js';

/** One route of the API: what the OpenAPI document says of it, and what requests and responses are checked against. */
export interface RouteSpec {
  method: 'get' | 'post';
  /** OpenAPI form: `/api/sessions/{id}`. */
  path: string;
  summary: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** A body that carries a message's text has room for one within `limits.maxMessageBytes`; others are small (body-limit.ts). */
  bodyKind?: 'message';
  /** Success responses by status; error statuses the route may answer (besides 401/403/421, which every route may). */
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
  errors?: number[];
}

const optionalString = z.string().min(1).optional();

/** Every route of the API. The OpenAPI document is made from this table; tests check the app serves exactly these. */
export const ROUTES = {
  workspace: {
    method: 'get',
    path: '/api/workspace',
    summary: 'Which workspace this server runs over',
    responses: { 200: { description: 'The workspace', schema: WorkspaceInfoSchema } },
  },
  config: {
    method: 'get',
    path: '/api/config',
    summary: 'The resolved config, every secret redacted',
    responses: { 200: { description: 'The config', schema: ConfigViewSchema } },
  },
  participants: {
    method: 'get',
    path: '/api/participants',
    summary: 'The collective: every active participant with its role, model, tools, delegation targets and live state',
    responses: { 200: { description: 'The participants', schema: ParticipantListResponseSchema } },
  },
  tools: {
    method: 'get',
    path: '/api/tools',
    summary: "The tools as one agent's model meets them (shown or hidden and why, approval needed)",
    query: z.object({ agent: optionalString }),
    responses: { 200: { description: "The agent's tools", schema: AgentToolsResponseSchema } },
    errors: [400, 404],
  },
  sessions: {
    method: 'get',
    path: '/api/sessions',
    summary:
      "Sessions, most recently active first, a page at a time (`limit`, default 50; `after`: the previous page's `next`); `q` matches id or title",
    query: z.object({
      q: z.string().optional(),
      limit: z.coerce.number().int().positive().max(500).optional(),
      after: optionalString,
    }),
    responses: { 200: { description: 'The sessions', schema: SessionListResponseSchema } },
  },
  createSession: {
    method: 'post',
    path: '/api/sessions',
    summary: 'Starts a new session',
    body: CreateSessionRequestSchema,
    responses: { 201: { description: 'The new session', schema: CreateSessionResponseSchema } },
    errors: [400, 413, 415],
  },
  session: {
    method: 'get',
    path: '/api/sessions/{id}',
    summary: 'One session and its conversations',
    responses: { 200: { description: 'The session', schema: SessionDetailResponseSchema } },
    errors: [400, 404],
  },
  messages: {
    method: 'get',
    path: '/api/sessions/{id}/conversations/{cid}/messages',
    summary: 'Messages of one conversation, oldest first: the newest `limit` (default 100, at most 500) before the message `before`',
    query: z.object({ before: optionalString, limit: z.coerce.number().int().positive().max(500).optional() }),
    responses: { 200: { description: 'A page of messages', schema: MessagesPageResponseSchema } },
    errors: [400, 404],
  },
  stream: {
    method: 'get',
    path: '/api/sessions/{id}/conversations/{cid}/stream',
    summary:
      "The reply its responder is streaming now, as far as it came (empty when none streams), and `seq`: the event stream's position it holds every `text:delta` up to; later deltas continue it",
    responses: { 200: { description: 'The text so far', schema: StreamTextResponseSchema } },
    errors: [400, 404],
  },
  send: {
    method: 'post',
    path: '/api/sessions/{id}/messages',
    summary: 'Sends a message (from the user, to the entry agent by default); the turn runs in the server, its progress arrives as events',
    body: SendMessageRequestSchema,
    bodyKind: 'message',
    responses: { 202: { description: 'The turn started', schema: SendMessageResponseSchema } },
    errors: [400, 404, 409, 413, 415],
  },
  cancel: {
    method: 'post',
    path: '/api/sessions/{id}/cancel',
    summary: "Stops the server's running turn(s) in one conversation, or in the whole session",
    body: CancelRequestSchema,
    responses: { 200: { description: 'How many turns were stopped', schema: CancelResponseSchema } },
    errors: [400, 404, 413, 415],
  },
  approvals: {
    method: 'get',
    path: '/api/sessions/{id}/approvals',
    summary: 'Approval requests of a session (pending by default), with the chain each climbed',
    query: z.object({ status: z.enum(['pending', 'all']).optional() }),
    responses: { 200: { description: 'The approvals', schema: ApprovalListResponseSchema } },
    errors: [400, 404],
  },
  approvalFileChange: {
    method: 'get',
    path: '/api/sessions/{id}/approvals/{approvalId}/file-change',
    summary:
      "What a pending file_write or file_edit would do to its file: the file as it is and as it would be, read through the tool's own path checks and the requester's reading policy, or why it is not shown",
    responses: { 200: { description: 'The change, or null for another tool or a decided request', schema: FileChangeResponseSchema } },
    errors: [400, 404],
  },
  answerApprovals: {
    method: 'post',
    path: '/api/sessions/{id}/approvals',
    summary:
      'Decides approval requests. Requests of one model response are decided together: answer them in one request or several; the batch is decided once each has an answer',
    body: ApprovalAnswerRequestSchema,
    responses: { 200: { description: 'Recorded', schema: AnsweredResponseSchema } },
    errors: [400, 404, 409, 413, 415],
  },
  questions: {
    method: 'get',
    path: '/api/questions',
    summary: 'Questions agents asked the user that wait for an answer (of one session, or all)',
    query: z.object({ session: optionalString }),
    responses: { 200: { description: 'The questions', schema: QuestionListResponseSchema } },
    errors: [400, 404],
  },
  answerQuestion: {
    method: 'post',
    path: '/api/questions/{id}/answer',
    summary: 'Answers a question; the first answer anywhere (browser, terminal) wins',
    body: QuestionAnswerRequestSchema,
    bodyKind: 'message',
    responses: { 200: { description: 'Recorded', schema: AnsweredResponseSchema } },
    errors: [400, 404, 409, 413, 415],
  },
  claims: {
    method: 'get',
    path: '/api/claims',
    summary:
      "Files claimed by running turns (in every process on the workspace's store): another agent's write to one does not happen until the turn ends",
    responses: { 200: { description: 'The claims', schema: ClaimListResponseSchema } },
  },
  releaseClaim: {
    method: 'post',
    path: '/api/claims/release',
    summary: "Frees a file a running turn claimed, so other agents may write it (the holder's next write claims it again)",
    body: ClaimReleaseRequestSchema,
    responses: { 200: { description: 'Released', schema: ClaimReleaseResponseSchema } },
    errors: [400, 404, 413, 415],
  },
  usage: {
    method: 'get',
    path: '/api/sessions/{id}/usage',
    summary: 'Tokens and cost of a session: in total, per participant (own and with delegates), per conversation',
    responses: { 200: { description: 'The usage', schema: SessionUsageResponseSchema } },
    errors: [400, 404],
  },
  conflicts: {
    method: 'get',
    path: '/api/sessions/{id}/conflicts',
    summary: 'Writes a file claim refused in a session (by any process), oldest first: who was refused, which file, and who held it',
    responses: { 200: { description: 'The refused writes', schema: SessionConflictsResponseSchema } },
    errors: [400, 404],
  },
  search: {
    method: 'get',
    path: '/api/search',
    summary: 'Messages whose text contains `q` (case-insensitive), newest first, at most 100',
    query: z.object({ q: z.string().min(1), session: optionalString }),
    responses: { 200: { description: 'The hits', schema: SearchResponseSchema } },
    errors: [400, 404],
  },
  events: {
    method: 'get',
    path: '/api/events',
    summary:
      'Server-sent events: `legion` (Legion events), `state` (participant states), `session` (new sessions), `reset`. Ids are `<epoch>-<seq>`; reconnect with `Last-Event-ID` (or `lastEventId`) to replay what was missed',
    query: z.object({
      session: optionalString,
      lastEventId: optionalString,
      /**
       * Which `text:delta` events to send: `all` (the default), `none`, or one conversation's id. A
       * tab shows one conversation: it need not read every token of every agent (ten delegates
       * streaming at once were half of a tab's events); it reads a conversation's text so far
       * through `GET …/conversations/{cid}/stream` when it opens it.
       */
      deltas: optionalString,
    }),
    responses: { 200: { description: 'The event stream', contentType: 'text/event-stream' } },
    errors: [400],
  },
  openapi: {
    method: 'get',
    path: '/api/openapi.json',
    summary: 'This document',
    responses: { 200: { description: 'OpenAPI 3.1', contentType: 'application/json' } },
  },
} as const satisfies Record<string, RouteSpec>;

export type RouteName = keyof typeof ROUTES;

/** `/api/sessions/{id}` → `/api/sessions/:id` (Hono's form). */
export function honoPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}
