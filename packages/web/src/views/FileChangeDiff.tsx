import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { ApprovalView, FileChange } from '../api/wire.js';
import { argumentsPatch, filePatch } from './diff-of.js';
import { pretty } from './format.js';
import { visibleText } from './visible-text.js';

/** A unified diff, each line coloured by what it does; every character made visible. */
export function Diff({ patch, testId = 'approval-diff' }: { patch: string; testId?: string }) {
  // Only the file header, no hunk, and a file on both sides: what would be written is what the file
  // holds already. (A new empty file has no hunk either; its header says /dev/null.)
  const unchanged = !/^@@/m.test(patch) && /^--- a\//m.test(patch);
  return (
    <pre class="diff" data-testid={testId} data-unchanged={unchanged ? 'true' : undefined}>
      {unchanged && <span class="muted">No change: the file already holds exactly this.{'\n'}</span>}
      {patch
        .replace(/\n$/, '')
        .split('\n')
        .map((line, index) => (
          <span
            key={index}
            class={
              line.startsWith('+') && !line.startsWith('+++')
                ? 'add'
                : line.startsWith('-') && !line.startsWith('---')
                  ? 'del'
                  : line.startsWith('@@')
                    ? 'hunk'
                    : ''
            }
          >
            {visibleText(line)}
            {'\n'}
          </span>
        ))}
    </pre>
  );
}

type Loaded = { state: 'loading' } | { state: 'loaded'; change: FileChange | null } | { state: 'failed'; error: string };

const isFileTool = (tool: string): boolean => tool === 'file_write' || tool === 'file_edit';

/**
 * What a pending approval's call would run. For `file_write` and `file_edit`: the diff against
 * the file as it is, which the server reads through the tool's own path checks and the
 * requester's reading policy; where it does not ("current content not shown: why"), the
 * arguments themselves. Any other tool: all of its input, wrapped, never cut.
 */
export function ApprovalInput({ approval }: { approval: Pick<ApprovalView, 'id' | 'sessionId' | 'tool' | 'input' | 'status'> }) {
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const fileTool = isFileTool(approval.tool) && approval.status === 'pending';
  useEffect(() => {
    if (!fileTool) return;
    let current = true;
    api.fileChange(approval.sessionId, approval.id).then(
      (change) => current && setLoaded({ state: 'loaded', change }),
      (error: unknown) => current && setLoaded({ state: 'failed', error: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      current = false;
    };
  }, [approval.sessionId, approval.id, fileTool]);
  if (!fileTool) return <ArgumentsView tool={approval.tool} input={approval.input} />;
  if (loaded.state === 'loading') return <p class="muted">Reading the file…</p>;
  const change = loaded.state === 'loaded' ? loaded.change : null;
  if (change?.status === 'shown')
    return (
      <>
        <p class="muted" data-testid="file-change-kind">
          {visibleText(change.path)}{' '}
          {change.before === null
            ? '(new file)'
            : approval.tool === 'file_edit'
              ? '(the file as it is now, edited)'
              : '(replaces the file as it is now)'}
        </p>
        <Diff patch={filePatch(change.path, change.before, change.after)} />
      </>
    );
  const why =
    change?.status === 'not_shown' ? change.reason : loaded.state === 'failed' ? loaded.error : 'the request is no longer pending.';
  return (
    <>
      <p class="muted" data-testid="file-change-not-shown">
        Current content not shown: {visibleText(why)}
      </p>
      <ArgumentsView tool={approval.tool} input={approval.input} />
    </>
  );
}

/** The arguments alone: `file_edit`'s replaced text against its replacement, else every field. */
function ArgumentsView({ tool, input }: { tool: string; input: unknown }) {
  const patch = argumentsPatch(tool, input);
  return patch !== null ? <Diff patch={patch} /> : <pre data-testid="approval-input">{visibleText(pretty(input))}</pre>;
}
