/** The colour scheme chosen in this browser: `system` follows `prefers-color-scheme`. */
export type Theme = 'system' | 'light' | 'dark';

const KEY = 'legion-theme';

export function savedTheme(): Theme {
  try {
    const saved = localStorage.getItem(KEY);
    return saved === 'light' || saved === 'dark' ? saved : 'system';
  } catch {
    // Storage refused (a locked-down profile): the system's scheme.
    return 'system';
  }
}

/** Applies the theme to the page (`<html data-theme>`; read.css keys its colours on it) and remembers it. */
export function applyTheme(theme: Theme, remember: boolean): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  if (!remember) return;
  try {
    if (theme === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, theme);
  } catch {
    // Not remembered: this page still shows it.
  }
}
