import type { ArtifactInfo, ArtifactStore } from './session-backend.js';

/**
 * One session's artifacts (large tool outputs evicted from the context) through
 * the backend: a tool or the context builder sees only its own session's, by name.
 */
export class SessionArtifacts {
  constructor(
    private readonly store: ArtifactStore,
    private readonly sessionId: string,
  ) {}

  /** Stores (or replaces, whole) an artifact; throws `LegionError` for a name that cannot be one. */
  put(name: string, content: string | Uint8Array): Promise<void> {
    return this.store.put(this.sessionId, name, content);
  }

  /** The artifact as UTF-8 text; undefined when there is none of that name. */
  getText(name: string): Promise<string | undefined> {
    return this.store.getText(this.sessionId, name);
  }

  /** Sorted by name. */
  list(): Promise<ArtifactInfo[]> {
    return this.store.list(this.sessionId);
  }
}
