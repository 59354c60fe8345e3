import { existsSync, readdirSync } from 'node:fs';
import { loadAgentTemplate, readParticipantFile } from './participant-file.js';
import { LegionError, ParticipantNotFoundError } from '../../kernel/index.js';
import { writeJsonAtomic } from '../../store/index.js';
import type { WorkspacePaths } from '../../store/index.js';
import { parseParticipant, type AgentParticipant, type AgentTemplate, type Participant, type ParticipantInput } from './participant.js';

/**
 * The roster: participants loaded from `.legion/collective/participants/*.json`.
 * Files are validated on load; a broken one is reported with its path and field
 * and never rewritten by Legion.
 */
export class Collective {
  private readonly participants = new Map<string, Participant>();
  /** Participants that come from config, not from the roster (the MCP client's user): found by id, never listed or saved. */
  private readonly callers = new Map<string, Participant>();

  constructor(
    participants: Iterable<ParticipantInput> = [],
    private readonly paths?: WorkspacePaths,
  ) {
    for (const participant of participants) this.add(parseParticipant(participant));
  }

  static load(paths: WorkspacePaths): Collective {
    const collective = new Collective([], paths);
    if (!existsSync(paths.participantsDir)) return collective;
    for (const entry of readdirSync(paths.participantsDir).sort()) {
      if (!entry.endsWith('.json')) continue;
      const file = `${paths.participantsDir}/${entry}`;
      const participant = readParticipantFile(file, { displayPath: paths.display(file) });
      collective.add(participant);
    }
    return collective;
  }

  get(id: string): Participant | undefined {
    return this.participants.get(id) ?? this.callers.get(id);
  }

  require(id: string): Participant {
    const participant = this.get(id);
    if (!participant || participant.status === 'retired') throw new ParticipantNotFoundError(id, this.ids());
    return participant;
  }

  /** Whether this id is a caller (from config, not the roster): such a user decides only within the chains it started (`decisionReach`). */
  isCaller(id: string): boolean {
    return !this.participants.has(id) && this.callers.has(id);
  }

  /** Active participants, in id order (so the order, and the fallback entry agent, survive a reload). */
  list(): Participant[] {
    return [...this.participants.values()]
      .filter((participant) => participant.status === 'active')
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  ids(): string[] {
    return this.list().map((participant) => participant.id);
  }

  agents(): AgentParticipant[] {
    return this.list().filter((participant): participant is AgentParticipant => participant.type === 'agent');
  }

  /** The first active user: who the UI speaks for. */
  defaultUser(): Participant | undefined {
    return this.list().find((participant) => participant.type === 'user');
  }

  /**
   * The agent that takes the user's messages: the configured one, else the
   * first agent (as Copilot Multi-Agent falls back), else the first non-user.
   * A configured user is skipped: the user would be sending to itself.
   */
  entryAgent(configured?: string): Participant {
    if (configured) {
      const participant = this.get(configured);
      if (participant && participant.status === 'active' && participant.type !== 'user') return participant;
    }
    const fallback = this.agents()[0] ?? this.list().find((participant) => participant.type !== 'user');
    if (!fallback) {
      throw new LegionError(
        'no_agents',
        'The collective has no agents. Run "legion init" or add one under .legion/collective/participants/.',
      );
    }
    return fallback;
  }

  /** Adds or replaces a participant in memory and, for a workspace collective, on disk. */
  save(input: ParticipantInput): Participant {
    const participant = parseParticipant(input);
    this.participants.set(participant.id, participant);
    if (this.paths) writeJsonAtomic(this.paths.participantFile(participant.id), participant);
    return participant;
  }

  /** Keeps the file (history refers to it) but takes the participant off the active roster. */
  retire(id: string): Participant {
    const participant = this.require(id);
    return this.save({ ...participant, status: 'retired' });
  }

  /**
   * Takes the roster of `reloaded` (the same workspace's files read again) in place, so that every
   * part holding this collective sees the edit; callers (from config) stay. Returns the ids of the
   * participants that were added, removed or changed.
   */
  replaceRoster(reloaded: Collective): string[] {
    const changed: string[] = [];
    for (const id of new Set([...this.participants.keys(), ...reloaded.participants.keys()])) {
      const before = this.participants.get(id);
      const after = reloaded.participants.get(id);
      if (JSON.stringify(before) !== JSON.stringify(after)) changed.push(id);
    }
    this.participants.clear();
    for (const [id, participant] of reloaded.participants) this.participants.set(id, participant);
    return changed.sort();
  }

  loadTemplate(name: string): AgentTemplate {
    if (!this.paths) throw new LegionError('no_workspace', 'Templates live in a workspace; this collective has none.');
    return loadAgentTemplate(this.paths.root, name);
  }

  /**
   * Adds a participant that is not part of the roster (the user an MCP client
   * calls as): `get`/`require` find it, so conversations and approvals with it
   * work in every process, but it is not listed (not a delegation target in
   * system prompts, never the default user) and not saved. A roster
   * participant with the same id wins.
   */
  addCaller(input: ParticipantInput): Participant | undefined {
    const participant = parseParticipant(input);
    if (this.participants.has(participant.id)) return undefined;
    this.callers.set(participant.id, participant);
    return participant;
  }

  private add(participant: Participant): void {
    if (this.participants.has(participant.id)) {
      throw new LegionError('duplicate_participant', `Participant id "${participant.id}" is used twice.`, { id: participant.id });
    }
    this.participants.set(participant.id, participant);
  }
}
