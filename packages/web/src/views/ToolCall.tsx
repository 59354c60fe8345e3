import { useState } from 'preact/hooks';
import type { KeptFileChange, ToolResult, ToolUse } from '../api/wire.js';
import { conversationIdOf } from '../state/app-state.js';
import { argumentsPatch } from './diff-of.js';
import { Diff } from './FileChangeDiff.js';
import { oneLine, pretty } from './format.js';
import { displayName, type Person } from './names.js';
import { plainText } from './plain-text.js';
import { pure } from './pure.js';
import { visibleText } from './visible-text.js';

/** What a `communicate` call asks for; anything else is not a delegation. */
function delegationOf(toolUse: ToolUse): { to: string; conversation?: string; message?: string } | null {
  if (toolUse.name !== 'communicate' || typeof toolUse.input !== 'object' || toolUse.input === null) return null;
  const input = toolUse.input as { to?: unknown; conversation?: unknown; message?: unknown };
  if (typeof input.to !== 'string') return null;
  return {
    to: input.to,
    ...(typeof input.conversation === 'string' && input.conversation !== '' ? { conversation: input.conversation } : {}),
    ...(typeof input.message === 'string' ? { message: input.message } : {}),
  };
}

/**
 * A call's input. A call that changed a file and kept what it did (its result's `fileChange`)
 * is that diff: the file as it was against the file as the call left it, removed lines and all.
 * Else (an older session, a change too large to keep, a call still running) a `file_edit` is its
 * replaced text against its replacement, and any other, `file_write` included, all of its
 * arguments: a `file_write` drawn against an empty file would say it created a file it may have
 * replaced (its result says which).
 */
function ToolInput({ toolUse, result }: { toolUse: ToolUse; result: ToolResult | null | undefined }) {
  const change = result?.fileChange;
  if (change?.status === 'kept')
    return (
      <>
        <p class="muted" data-testid={`tool-change-kind-${toolUse.id}`}>
          {visibleText(change.path)} ({CHANGE_WORDS[change.action]})
        </p>
        <Diff patch={change.patch} testId={`tool-diff-${toolUse.id}`} />
      </>
    );
  const patch = argumentsPatch(toolUse.name, toolUse.input);
  return (
    <>
      {change?.status === 'not_kept' && (
        <p class="muted" data-testid={`tool-change-not-kept-${toolUse.id}`}>
          The change to {visibleText(change.path)} was not kept: {visibleText(change.reason)}
        </p>
      )}
      {patch !== null ? <Diff patch={patch} testId={`tool-diff-${toolUse.id}`} /> : <pre>{visibleText(pretty(toolUse.input))}</pre>}
    </>
  );
}

const CHANGE_WORDS: Record<KeptFileChange['action'], string> = {
  created: 'new file',
  replaced: 'replaced: the file as it was, against what was written',
  edited: 'edited: the file as it was, around the edit',
  deleted: 'deleted: what it held',
};

/** One tool call as one line; opened, its input and output. A delegation links to the conversation it opened. */
export const ToolCall = pure(function ToolCall({
  toolUse,
  result,
  caller,
  participants,
  onOpenConversation,
}: {
  toolUse: ToolUse;
  result: ToolResult | null | undefined;
  caller: string;
  /** For the delegation link's names. */
  participants: readonly Person[];
  onOpenConversation(id: string): void;
}) {
  const [open, setOpen] = useState(false);
  const delegation = delegationOf(toolUse);
  // null: the conversation went on without this call's result, so it is not running any more.
  const status = result === undefined ? 'running' : result === null ? 'no result' : result.isError ? 'error' : 'done';
  return (
    <div class={`tool-call ${status.replace(' ', '-')}`} data-testid={`tool-call-${toolUse.id}`} data-status={status}>
      <button type="button" class="tool-line" aria-expanded={open} data-testid={`tool-toggle-${toolUse.id}`} onClick={() => setOpen(!open)}>
        <span class="chevron">{open ? '▾' : '▸'}</span>
        {/* A delegation's line says what it asks (whom it asks is the link below); opened, all of its input. */}
        <code>{visibleText(toolUse.name)}</code>{' '}
        <span class="muted">{oneLine(delegation?.message !== undefined ? plainText(delegation.message) : toolUse.input)}</span>{' '}
        <span class={`badge ${status.replace(' ', '-')}`}>{status}</span>
      </button>
      {delegation && (
        <a
          href="#/work"
          class="delegation-link"
          data-testid={`delegation-link-${toolUse.id}`}
          onClick={(event) => {
            event.preventDefault();
            onOpenConversation(conversationIdOf(caller, delegation.to, delegation.conversation));
          }}
        >
          → {visibleText(`${displayName(participants, caller)} → ${displayName(participants, delegation.to)}`)}
          {delegation.conversation && <span class="tag">{visibleText(delegation.conversation)}</span>}
        </a>
      )}
      {open && (
        <div class="tool-detail" data-testid={`tool-detail-${toolUse.id}`}>
          <h4>{result?.fileChange?.status === 'kept' ? 'Change' : 'Input'}</h4>
          <ToolInput toolUse={toolUse} result={result} />
          <h4>Output</h4>
          <pre>{result === undefined ? '(running)' : result === null ? '(no result was recorded)' : visibleText(result.content)}</pre>
        </div>
      )}
    </div>
  );
});
