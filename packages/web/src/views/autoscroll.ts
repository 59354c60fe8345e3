import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/** Within this many pixels of the bottom, a reader is following the conversation (not reading back). */
const FOLLOWING_SLACK_PX = 32;

/** Dispatched on `window` when the user sent a message here: the conversation is followed again. */
export const SENT_EVENT = 'legion:sent';

/**
 * Keeps a scrolled list at its newest line while the reader is at the bottom: new messages and
 * streamed text scroll into view, until the reader scrolls up to read back. Sending a message, or
 * opening another conversation, follows again. `following` is false while they read back (the
 * view offers "jump to latest" then).
 */
export function useAutoscroll<Element extends HTMLElement>(
  key: string | null,
  content: unknown,
): { ref: { current: Element | null }; following: boolean; jump(): void } {
  const ref = useRef<Element | null>(null);
  const [following, setFollowing] = useState(true);
  // Read in effects without waiting for a render: a scroll event and new text can land in the same frame.
  const followingRef = useRef(true);
  const follow = useCallback((value: boolean) => {
    followingRef.current = value;
    setFollowing(value);
  }, []);
  const jump = useCallback(() => {
    const element = ref.current;
    if (element) element.scrollTop = element.scrollHeight;
    follow(true);
  }, [follow]);

  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const onScroll = (): void => {
      const atBottom = element.scrollHeight - element.scrollTop - element.clientHeight <= FOLLOWING_SLACK_PX;
      if (atBottom !== followingRef.current) follow(atBottom);
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => element.removeEventListener('scroll', onScroll);
  }, [key, follow]);

  useEffect(() => {
    addEventListener(SENT_EVENT, jump);
    return () => removeEventListener(SENT_EVENT, jump);
  }, [jump]);

  // Another conversation opens at its newest line.
  useLayoutEffect(() => jump(), [key, jump]);

  useLayoutEffect(() => {
    const element = ref.current;
    if (element && followingRef.current) element.scrollTop = element.scrollHeight;
  }, [content]);

  return { ref, following, jump };
}
