import type { Collective, Limits } from '../../../team/index.js';
import type { SessionHistory } from '../../../session/index.js';
import type { SessionMeta } from '../../../store/index.js';
import type { Tool } from '../../tool.js';

/** The part of the SessionStore the collective tools read. */
export interface SessionDirectory {
  list(): Promise<SessionMeta[]>;
  /** Throws SessionNotFoundError for an unknown id. */
  get(id: string): Promise<SessionHistory>;
}

export interface CollectiveToolsOptions {
  collective: Collective;
  sessions: SessionDirectory;
  /** The tools a participant may use (its `tools` permission applied), for list_tools. */
  toolsFor: (participantId: string) => readonly Pick<Tool, 'name' | 'description' | 'effect'>[];
  /** The workspace's limits: an agent's limits written by a model may only lower them (default: the built-in defaults). */
  workspaceLimits?: Limits | undefined;
}
