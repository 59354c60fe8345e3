import type { ConversationSummary, WireMessage } from '../api/wire.js';
import { useMemo } from 'preact/hooks';
import type { Stream } from '../state/app-state.js';
import { formatTime } from './format.js';
import { Markdown } from './Markdown.js';
import { ToolCall } from './ToolCall.js';
import { useAutoscroll } from './autoscroll.js';
import { JumpToLatest } from './JumpToLatest.js';
import { placeToolResults, resultOf, showsNothing } from './tool-results.js';
import { visibleText } from './visible-text.js';
import { displayName, type Person } from './names.js';
import { Who } from './Who.js';

interface ConversationProps {
  conversation: ConversationSummary | undefined;
  conversationId: string | null;
  messages: WireMessage[] | undefined;
  /** For names and colours; an id not among them shows as itself. */
  participants?: readonly Person[];
  stream: Stream | undefined;
  earlier: boolean;
  active: boolean;
  onCancel(): void;
  onOpenConversation(id: string): void;
  onLoadEarlier(): void;
}

const NO_PARTICIPANTS: readonly Person[] = [];

/** A conversation's messages, the reply being streamed under them. */
export function Conversation({
  conversation,
  conversationId,
  messages,
  participants = NO_PARTICIPANTS,
  stream,
  earlier,
  active,
  onCancel,
  onOpenConversation,
  onLoadEarlier,
}: ConversationProps) {
  const scroll = useAutoscroll<HTMLOListElement>(conversationId, `${messages?.length ?? 0} ${stream?.text.length ?? -1}`);
  // The same element while the messages are the same: Preact skips it, so a streamed delta redraws
  // the streaming line only, not every message (each of them markdown parsed again) at every frame.
  const history = useMemo(
    () => <History messages={messages ?? []} participants={participants} onOpenConversation={onOpenConversation} />,
    [messages, participants, onOpenConversation],
  );
  if (conversationId === null) {
    return (
      <section class="panel conversation" data-testid="view-conversation">
        <p class="muted">No conversation yet: send a message below.</p>
      </section>
    );
  }
  const [initiator = conversationId, responder = '', ...rest] = conversationId.split('__');
  const ends = conversation ?? { initiator, responder, name: rest.length > 0 ? rest.join('__') : undefined };
  return (
    <section class="panel conversation" data-testid="view-conversation" data-conversation={conversationId}>
      <h2>
        {/* Named from its id until its summary comes (a conversation just sent to): never the raw id. */}
        {visibleText(`${displayName(participants, ends.initiator)} → ${displayName(participants, ends.responder)}`)}
        {ends.name && <span class="tag">{visibleText(ends.name)}</span>}
        {active && (
          <button type="button" class="danger stop" data-testid="cancel-turn" onClick={onCancel}>
            Stop
          </button>
        )}
      </h2>
      {earlier && (
        <button type="button" class="link" data-testid="load-earlier" onClick={onLoadEarlier}>
          Earlier messages…
        </button>
      )}
      <ol class="messages" data-testid="messages" aria-live="polite" aria-relevant="additions" ref={scroll.ref}>
        {history}
        {stream && (
          <li class="message assistant streaming" data-testid="streaming" data-author={stream.participantId}>
            <div class="meta">
              <Who id={stream.participantId} participants={participants} /> <span class="muted">writing…</span>
            </div>
            <Markdown text={stream.text} testId="streaming-text" />
          </li>
        )}
      </ol>
      {!scroll.following && <JumpToLatest onJump={scroll.jump} />}
    </section>
  );
}

interface HistoryProps {
  messages: WireMessage[];
  participants: readonly Person[];
  onOpenConversation(id: string): void;
}

/** The conversation's messages, each tool call with its result. */
function History({ messages, participants, onOpenConversation }: HistoryProps) {
  const placement = placeToolResults(messages);
  return (
    <>
      {messages.map((message) =>
        showsNothing(message, placement) ? null : message.ending ? (
          <li key={message.id} class={`message ending ${message.ending.status}`} data-testid="turn-ending" data-author={message.author}>
            <div class="meta">
              <Who id={message.author} participants={participants} /> <span class="muted">{formatTime(message.at)}</span>
            </div>
            <p class="text">
              {message.ending.status === 'cancelled'
                ? 'Cancelled: the turn was stopped before it finished its reply.'
                : visibleText(`Failed (${message.ending.code})${message.ending.error ? `: ${message.ending.error}` : ''}`)}
            </p>
          </li>
        ) : (
          <li key={message.id} class={`message ${message.role}`} data-testid={`message-${message.id}`} data-author={message.author}>
            <div class="meta">
              <Who id={message.author} participants={participants} /> <span class="muted">{formatTime(message.at)}</span>
              {message.medium && <span class="tag">{visibleText(message.medium)}</span>}
            </div>
            {message.content.map((block, index) => {
              // A text of only white space (what some models send beside their tool calls) draws nothing.
              if (block.type === 'text')
                return block.text.trim() === '' ? null : <Markdown key={index} text={block.text} testId="message-text" />;
              if (block.type === 'tool_use')
                return (
                  <ToolCall
                    key={index}
                    toolUse={block}
                    result={resultOf(placement, message.id, block.id)}
                    caller={message.author}
                    participants={participants}
                    onOpenConversation={onOpenConversation}
                  />
                );
              // A result is shown in its call's line; one without its call just before it (an older page) stands alone.
              if (placement.placed.get(message.id)?.has(index)) return null;
              return (
                <pre key={index} class="orphan-result" data-testid="orphan-result">
                  {visibleText(block.content)}
                </pre>
              );
            })}
          </li>
        ),
      )}
    </>
  );
}
