import type { Legion } from '@legion-collective/core';
import type { BodyLimits } from './body-limit.js';
import type { EventJournal } from './event-journal.js';
import type { ParticipantStates } from './participant-states.js';
import type { ServerTurns } from './server-turns.js';
import type { SessionPages } from './session-pages.js';
import type { SessionViews } from './session-views.js';
import type { StreamTexts } from './stream-texts.js';
import type { UsageViews } from './usage-views.js';
import type { WebUser } from './web-user.js';

/** What the routes share: the Legion, the event journal, the browser's user surface, the server's turns. */
export interface ServerContext {
  legion: Legion;
  version: string;
  /** What a request body may weigh, by route kind (from `limits.maxMessageBytes`). */
  bodyLimits: BodyLimits;
  journal: EventJournal;
  states: ParticipantStates;
  /** What each conversation's responder has streamed so far (a client opening it mid-reply reads it). */
  streams: StreamTexts;
  webUser: WebUser;
  turns: ServerTurns;
  views: SessionViews;
  /** Pages of the session list, from core's catalog. */
  sessionPages: SessionPages;
  /** Usage summaries, read once per change for every client that asks. */
  usage: UsageViews;
  /** Sessions a question was asked in, by question id (from events), to answer it without searching. */
  questionSessions: Map<string, string>;
  /** Follows a session left idle when the server started (a browser opened it): what other processes write in it shows live. */
  ensureFollowed(sessionId: string): Promise<void>;
  heartbeatMs: number;
  /** Aborts when the server closes: open event streams end. */
  closing: AbortSignal;
}
