import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * Loads the next page of sessions when pressed, or when it scrolls into view: a workspace keeps
 * thousands of sessions, and the list asks the server for a page at a time.
 */
export function MoreSessions({ onMore }: { onMore(): Promise<void> }) {
  const [loading, setLoading] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const load = (): void => {
    if (loading) return;
    setLoading(true);
    void onMore().finally(() => setLoading(false));
  };
  useEffect(() => {
    const element = button.current;
    if (element === null || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) load();
    });
    observer.observe(element);
    return () => observer.disconnect();
  });
  return (
    <button type="button" ref={button} data-testid="sessions-more" disabled={loading} onClick={load}>
      {loading ? 'Loading sessions…' : 'More sessions'}
    </button>
  );
}
