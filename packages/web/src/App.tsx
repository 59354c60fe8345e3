import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { Controller } from './state/controller.js';
import { useAppState, type Store } from './state/store.js';
import { approvalsOf, questionsWaitingIn } from './state/waiting-on-you.js';
import { Approvals } from './views/Approvals.js';
import { Composer, type ComposerTarget } from './views/Composer.js';
import type { AppState } from './state/app-state.js';
import { isUser } from './state/people.js';
import type { WireMessage } from './api/wire.js';
import { Conversation } from './views/Conversation.js';
import { Notices } from './views/Notices.js';
import { Claims, ConflictNotice } from './views/Claims.js';
import { Cost } from './views/Cost.js';
import { SessionSwitcher, ThemeToggle } from './views/HeaderControls.js';
import { Questions } from './views/Questions.js';
import { Roster } from './views/Roster.js';
import { Sessions } from './views/Sessions.js';
import { Side } from './views/Side.js';
import { visibleText } from './views/visible-text.js';
import { WorktreeReviews } from './views/WorktreeReviews.js';
import { WaitingOnYou } from './views/WaitingOnYou.js';
import { usePeople } from './views/names.js';

const VIEWS = ['work', 'collective', 'questions', 'approvals', 'claims', 'cost', 'sessions'] as const;
type View = (typeof VIEWS)[number];

const viewOf = (hash: string): View => VIEWS.find((view) => hash === `#/${view}`) ?? 'work';

export function App({ store, controller }: { store: Store; controller: Controller }) {
  const state = useAppState(store);
  // Who the participants are, apart from what they do: the views that only name them keep it while states change.
  const people = usePeople(state.participants);
  const [view, setView] = useState<View>(viewOf(location.hash));
  useEffect(() => {
    const follow = () => setView(viewOf(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  useEffect(() => controller.watchUsage(view === 'cost'), [controller, view]);
  // The Sessions and Cost views show each session's counts and cost.
  useEffect(() => controller.watchSessions(view === 'sessions' || view === 'cost'), [controller, view]);
  const open = useCallback(
    (conversationId: string) => {
      location.hash = '#/work';
      void controller.openConversation(conversationId);
    },
    [controller],
  );
  const pendingApprovals = state.approvals.filter((approval) => approval.status === 'pending').length;
  const selected = state.selectedConversation;
  // The same element while what it shows is the same: Preact skips an element it rendered last time,
  // so a streamed delta (which changes only `streams`) does not redraw the graph, the tree and the list.
  const side = useMemo(
    () => (
      <Side
        participants={state.participants}
        people={people}
        conversations={state.conversations}
        activeTurns={state.activeTurns}
        turnTree={state.turnTree}
        selected={selected}
        onOpen={open}
      />
    ),
    [state.participants, people, state.conversations, state.activeTurns, state.turnTree, selected, open],
  );
  const entryAgent = state.workspace?.entryAgent ?? undefined;
  // What the conversation on screen waits on you for: shown at its foot, answered in its own message box.
  const waitingQuestions = selected !== null ? questionsWaitingIn(state, selected) : [];
  const waitingApprovals = selected !== null ? approvalsOf(state, selected) : [];
  const counts: Partial<Record<View, number>> = {
    questions: state.questions.length,
    approvals: pendingApprovals,
    claims: state.claims.length,
  };
  return (
    <div class="app">
      <header>
        <strong class="brand">Legion</strong>
        <span class="muted" data-testid="workspace-root">
          {state.workspace?.root}
        </span>
        <SessionSwitcher
          sessions={state.sessions}
          sessionId={state.sessionId}
          onSwitch={(id) => {
            location.hash = '#/work';
            void controller.switchSession(id);
          }}
        />
        <span class="muted session-id" data-testid="current-session">
          {state.sessionId ?? 'no session'}
        </span>
        <span class={`connection ${state.connection}`} data-testid="connection" data-state={state.connection}>
          {state.connection === 'open' ? 'live' : state.connection}
        </span>
        <ThemeToggle />
      </header>
      <nav>
        {VIEWS.map((name) => (
          <a key={name} href={`#/${name}`} class={view === name ? 'current' : ''} data-testid={`nav-${name}`}>
            {name === 'work' ? 'conversations' : name}
            {(counts[name] ?? 0) > 0 && (
              <span class="count" data-testid={`nav-${name}-count`}>
                {counts[name]}
              </span>
            )}
          </a>
        ))}
      </nav>
      {state.error && (
        <p class="error banner" data-testid="error">
          {visibleText(state.error)}
        </p>
      )}
      <Notices notices={state.notices} onDismiss={(id) => controller.dismissNotice(id)} />
      <ConflictNotice conflicts={state.conflicts} participants={people} onDismiss={() => controller.dismissConflicts()} />
      <main>
        {view === 'work' && (
          <div class="work">
            {side}
            <div class="main-column">
              <Conversation
                conversationId={selected}
                conversation={selected !== null ? state.conversations[selected] : undefined}
                messages={selected !== null ? state.messages[selected] : undefined}
                participants={people}
                stream={selected !== null ? state.streams[selected] : undefined}
                earlier={selected !== null && state.earlier[selected] === true}
                active={selected !== null && selected in state.activeTurns}
                onCancel={() => selected !== null && void controller.cancel(selected)}
                onOpenConversation={open}
                onLoadEarlier={() => selected !== null && void controller.loadEarlier(selected)}
              />
              <WorktreeReviews reviews={state.reviews} participants={people} />
              <WaitingOnYou
                lastAsked={selected !== null ? lastAskedIn(state.messages[selected]) : undefined}
                questions={waitingQuestions}
                approvals={waitingApprovals}
                participants={people}
                onAnswer={(id, text) => controller.answer(id, text)}
                onDecide={(answers) => controller.decide(answers)}
              />
              <Composer
                participants={people}
                entryAgent={entryAgent}
                target={composerTarget(state, selected)}
                answering={waitingQuestions}
                approvalsWaiting={waitingApprovals.filter((approval) => approval.status === 'pending').length}
                onSend={(text, to, name) => controller.send(text, to, name)}
                onAnswer={(id, text) => controller.answer(id, text)}
              />
            </div>
          </div>
        )}
        {view === 'collective' && <Roster participants={state.participants} entryAgent={entryAgent} />}
        {view === 'questions' && (
          <Questions questions={state.questions} participants={people} onAnswer={(id, text) => controller.answer(id, text)} />
        )}
        {view === 'approvals' && (
          <Approvals approvals={state.approvals} participants={people} onDecide={(answers) => controller.decide(answers)} />
        )}
        {view === 'claims' && (
          <Claims
            claims={state.claims}
            refusedWrites={state.refusedWrites}
            participants={people}
            onRefresh={() => controller.refreshClaims()}
            onRelease={(path) => void controller.releaseClaim(path)}
          />
        )}
        {view === 'cost' && <Cost usage={state.usage} sessions={state.sessions} sessionId={state.sessionId} participants={people} />}
        {view === 'sessions' && (
          <Sessions
            sessions={state.sessions}
            participants={people}
            sessionId={state.sessionId}
            hasMore={state.sessionsNext !== null}
            onMore={() => controller.moreSessions()}
            onSwitch={(id) => {
              location.hash = '#/work';
              void controller.switchSession(id);
            }}
            onNew={() => {
              location.hash = '#/work';
              void controller.newSession();
            }}
            onSearch={(q) => controller.search(q)}
            onOpenHit={(hit) => {
              location.hash = '#/work';
              void (hit.sessionId === state.sessionId
                ? controller.openConversation(hit.conversationId)
                : controller.switchSession(hit.sessionId).then(() => controller.openConversation(hit.conversationId)));
            }}
          />
        )}
      </main>
    </div>
  );
}

/** The conversation on screen as the composer needs it (undefined: none open). */
function composerTarget(state: AppState, selected: string | null): ComposerTarget | undefined {
  if (selected === null) return undefined;
  const conversation = state.conversations[selected];
  if (!conversation) return undefined;
  return {
    id: conversation.id,
    yours: isUser(state.participants, conversation.initiator),
    initiator: conversation.initiator,
    responder: conversation.responder,
    name: conversation.name,
    active: selected in state.activeTurns,
  };
}

/** The latest message of a conversation that asked something of its responder (text, not tool results): each starts a turn. */
function lastAskedIn(messages: readonly WireMessage[] | undefined): string | undefined {
  if (!messages) return undefined;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'user' && message.content.some((block) => block.type === 'text')) return message.id;
  }
  return undefined;
}
