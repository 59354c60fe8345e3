import type { Legion, LegionEvent, LegionEventName } from '@legion-collective/core';
import type { EventJournal } from './event-journal.js';
import { STREAMED_EVENT_NAMES } from './wire/events.js';
import { ParticipantStates } from './participant-states.js';
import { StreamTexts } from './stream-texts.js';

/** Legion's events, participants' derived states and new sessions, into the journal; returns the disposer. */
export function feedJournal(
  legion: Legion,
  journal: EventJournal,
): {
  states: ParticipantStates;
  streams: StreamTexts;
  announceSession(session: { sessionId: string; createdAt: string; title?: string | undefined }): void;
  stop(): void;
} {
  const states = new ParticipantStates(
    (participantId, state) => journal.append('state', { participantId, ...state }, undefined),
    (participantId) => legion.collective.get(participantId)?.type === 'user',
  );
  const streams = new StreamTexts();
  const forward = (event: LegionEvent): void => {
    // The bus numbers events across every subscriber; the stream numbers its own, without gaps.
    const { seq: _busSeq, ...payload } = event;
    // Before the append: a snapshot read after a delta's append holds that delta (its `seq` says up to where).
    streams.observe(event);
    journal.append(
      'legion',
      payload,
      'sessionId' in event ? event.sessionId : undefined,
      event.type === 'text:delta' ? event.conversationId : undefined,
    );
    states.observe(event);
  };
  // One subscription per name (not onAny): events nobody listens to are never built.
  const subscribe = <Name extends LegionEventName>(name: Name): (() => void) =>
    legion.events.on(name, (event) => forward(event as LegionEvent));
  const offs = STREAMED_EVENT_NAMES.map((name) => subscribe(name));
  const announced = new Set<string>();
  return {
    states,
    streams,
    announceSession(session) {
      if (announced.has(session.sessionId)) return;
      announced.add(session.sessionId);
      journal.append(
        'session',
        {
          sessionId: session.sessionId,
          created: true,
          createdAt: session.createdAt,
          ...(session.title !== undefined ? { title: session.title } : {}),
        },
        session.sessionId,
      );
    },
    stop() {
      for (const off of offs) off();
    },
  };
}
