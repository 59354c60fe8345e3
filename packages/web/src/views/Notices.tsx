import type { Notice } from '../state/app-state.js';
import { visibleText } from './visible-text.js';

/** Notices above the views (a config reload, a guessed window), each until the user dismisses it. */
export function Notices({ notices, onDismiss }: { notices: readonly Notice[]; onDismiss: (id: string) => void }) {
  if (notices.length === 0) return null;
  return (
    <ul class="notices" data-testid="notices" aria-live="polite">
      {notices.map((notice) => (
        <li key={notice.id} class={`notice ${notice.tone}`} data-testid={`notice-${notice.id}`}>
          <span>{visibleText(notice.text)}</span>
          <button type="button" class="link" aria-label="Dismiss this notice" onClick={() => onDismiss(notice.id)}>
            dismiss
          </button>
        </li>
      ))}
    </ul>
  );
}
