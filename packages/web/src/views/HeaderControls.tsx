import { useState } from 'preact/hooks';
import type { SessionSummary } from '../api/wire.js';
import { applyTheme, savedTheme, type Theme } from './theme.js';
import { visibleText } from './visible-text.js';

/** A session's name in lists and the header: its title (core takes one from the first message), else its id. */
export const sessionLabel = (session: Pick<SessionSummary, 'id' | 'title'>): string => session.title ?? session.id;

/** The current session's title, and a switcher to any other (newest first, as the server lists them). */
export function SessionSwitcher({
  sessions,
  sessionId,
  onSwitch,
}: {
  sessions: readonly SessionSummary[];
  sessionId: string | null;
  onSwitch(id: string): void;
}) {
  const current = sessions.find((session) => session.id === sessionId);
  return (
    <label class="session-switcher">
      <span class="visually-hidden">Session</span>
      <select
        value={sessionId ?? ''}
        data-testid="session-switcher"
        title={current ? visibleText(sessionLabel(current)) : undefined}
        onChange={(event) => {
          const id = event.currentTarget.value;
          if (id !== '' && id !== sessionId) onSwitch(id);
        }}
      >
        {sessionId === null && <option value="">no session</option>}
        {sessionId !== null && current === undefined && <option value={sessionId}>{visibleText(sessionId)}</option>}
        {sessions.map((session) => (
          <option key={session.id} value={session.id}>
            {visibleText(sessionLabel(session))}
          </option>
        ))}
      </select>
    </label>
  );
}

const NEXT: Record<Theme, Theme> = { system: 'dark', dark: 'light', light: 'system' };
const LABEL: Record<Theme, string> = { system: 'Theme: system', dark: 'Theme: dark', light: 'Theme: light' };

/** Light, dark, or as the system says; remembered in this browser. */
export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(savedTheme);
  return (
    <button
      type="button"
      class="theme-toggle"
      data-testid="theme-toggle"
      data-theme={theme}
      title="Colour scheme: system, dark or light (remembered in this browser)"
      onClick={() => {
        const next = NEXT[theme];
        applyTheme(next, true);
        setTheme(next);
      }}
    >
      {LABEL[theme]}
    </button>
  );
}
