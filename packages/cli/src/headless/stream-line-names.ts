import type { LegionEventName } from '@legion-collective/core';

/**
 * How each of core's events shows in `legion run --output stream-json`: the one declared mapping
 * from core's event names to the line names docs/reference/stream-json.md documents (scripts depend on them, so they
 * never change), or why an event has no line. Every core event is listed (a new one fails to
 * compile until it is given a line or a reason); the line schemas (stream-line.ts) and the lines
 * (stream-lines.ts) take their names from here.
 *
 * `line` is the name of the line the event becomes; a tool call or result of `communicate` becomes
 * a delegation line instead (`communicate`). `omitted` says why the event has no line of its own.
 */
export const STREAM_LINE_NAMES = {
  'message:sent': { line: 'message' },
  'turn:start': { line: 'turn:start' },
  'turn:end': { line: 'turn:end' },
  'text:delta': { line: 'text:delta' },
  'tool:call': { line: 'tool:call', communicate: 'delegation:start' },
  'tool:result': { line: 'tool:result', communicate: 'delegation:end' },
  'delegation:queued': { line: 'delegation:queued' },
  'worktree:ready': { line: 'worktree:ready' },
  'usage:report': { line: 'usage' },
  'provider:retry': { line: 'retry' },
  'context:compacted': { line: 'context:compacted' },
  'window:guessed': { line: 'window:guessed' },
  'approval:requested': { line: 'approval:requested' },
  'approval:decided': { line: 'approval:decided' },
  'claim:conflict': { line: 'claim:conflict' },
  'storage:warning': { line: 'warning' },
  'error:raised': { line: 'error' },
  'delegation:dequeued': { omitted: 'the delegation:start line came before it; a queued one also had delegation:queued' },
  'context:usage': { omitted: 'measured only while someone listens, at a cost on every model request; a run reports usage instead' },
  'question:asked': {
    omitted: "the question tracker (questions.ts) writes question:* lines from the user's turn, with the answer the asker got",
  },
  'question:answered': {
    omitted: "the question tracker (questions.ts) writes question:* lines from the user's turn, with the answer the asker got",
  },
  'question:withdrawn': {
    omitted: "the question tracker (questions.ts) writes question:* lines from the user's turn, with the answer the asker got",
  },
  'approval-rule:added': { omitted: 'workspace bookkeeping: the decision that made the rule has its approval:decided line' },
  'approval-rule:removed': { omitted: 'workspace bookkeeping, not part of a run' },
  'session:created': { omitted: 'run:start names the session' },
  'session:updated': { omitted: 'session bookkeeping (its last activity, its title), not part of a run' },
  'tool:register': { omitted: 'tool registrations are the workspace set-up, not part of a run' },
  'tool:unregister': { omitted: 'tool registrations are the workspace set-up, not part of a run' },
  'config:reloaded': { omitted: 'a run reads the config as it starts; a reload happens only in a process that stays open' },
} as const satisfies Record<LegionEventName, { line: string; communicate?: string } | { omitted: string }>;

type Mapping = (typeof STREAM_LINE_NAMES)[LegionEventName];

/** The line names events become. */
export type EventLineName = Extract<Mapping, { line: string }>['line'] | Extract<Mapping, { communicate: string }>['communicate'];
