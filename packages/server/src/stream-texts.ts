import type { LegionEvent } from '@legion-collective/core';

/** What a responder has streamed in a conversation so far: its reply before it is appended. */
export interface StreamText {
  participantId: string;
  text: string;
}

/** Streams of at most this many conversations are kept (each ends when its reply is appended or its turn ends). */
const MAX_STREAMS = 1_000;

/**
 * The text each conversation's responder is streaming now, from the deltas: what a client that
 * opens the conversation mid-reply (a new tab, another conversation opened, a stream that only
 * carries the deltas of the conversation on screen) shows before the next delta, instead of the
 * reply from its middle.
 */
export class StreamTexts {
  private readonly streams = new Map<string, StreamText>();

  observe(event: LegionEvent): void {
    switch (event.type) {
      case 'text:delta': {
        const key = keyOf(event);
        const known = this.streams.get(key);
        if (known) known.text += event.text;
        else {
          if (this.streams.size >= MAX_STREAMS) this.streams.delete(this.streams.keys().next().value!);
          this.streams.set(key, { participantId: event.participantId, text: event.text });
        }
        return;
      }
      case 'message:sent':
        // The reply is appended: what streamed is in it.
        if (event.message.role === 'assistant') this.streams.delete(keyOf(event));
        return;
      case 'turn:end':
        this.streams.delete(keyOf(event));
        return;
      default:
        return;
    }
  }

  get(sessionId: string, conversationId: string): StreamText | undefined {
    const known = this.streams.get(keyOf({ sessionId, conversationId }));
    return known ? { ...known } : undefined;
  }
}

function keyOf(where: { sessionId: string; conversationId: string }): string {
  return `${where.sessionId}\0${where.conversationId}`;
}
