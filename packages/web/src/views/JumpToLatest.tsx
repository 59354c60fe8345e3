/** Offered while the reader scrolled up from the newest line: back to it, and following again. */
export function JumpToLatest({ onJump }: { onJump(): void }) {
  return (
    <button type="button" class="jump-to-latest" data-testid="jump-to-latest" onClick={onJump}>
      ↓ Jump to latest
    </button>
  );
}
