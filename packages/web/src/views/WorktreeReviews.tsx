import type { WorktreeReview } from '../state/app-state.js';
import { plural } from './format.js';
import { displayName, type Person } from './names.js';
import { visibleText } from './visible-text.js';

/**
 * Isolated agents' changes that wait on you: the files, and the command that applies one. Applying
 * writes the main tree, so it stays a terminal command a person runs (`legion worktrees apply`),
 * not a button an open page (or a script driving it) could press.
 */
export function WorktreeReviews({ reviews, participants }: { reviews: WorktreeReview[]; participants: readonly Person[] }) {
  if (reviews.length === 0) return null;
  return (
    <section class="panel worktree-reviews" data-testid="worktree-reviews" aria-label="Changes awaiting review">
      <h3>Changes awaiting review</h3>
      <ul class="cards">
        {reviews.map((review) => (
          <li key={review.worktreeId} class="card" data-testid={`worktree-review-${review.worktreeId}`}>
            <p>
              {visibleText(
                `${displayName(participants, review.participantId)}'s change is ready for review (${plural(review.files.length, 'file')}):`,
              )}{' '}
              <code>{visibleText(`legion worktrees apply ${review.worktreeId}`)}</code>
            </p>
            <ul class="files">
              {review.files.map((file) => (
                <li key={file}>
                  <code>{visibleText(file)}</code>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}
