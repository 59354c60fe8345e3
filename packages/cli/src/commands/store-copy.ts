import { FileSessionBackend, LegionError, type SessionBackend, type StorageWarning } from '@legion-collective/core';
import {
  exportSession,
  importSession,
  summarizeSnapshot,
  type SessionSnapshot,
  type SnapshotSummary,
} from '@legion-collective/core/backend';
import { storageSelection } from '@legion-collective/core/management';
import { z } from 'zod';
import { openPostgresBackend, resolveWorkspace } from '../workspace.js';
import { stdout, stderr } from '../render/terminal-text.js';

const StoreKindSchema = z.enum(['files', 'postgres']);
type StoreKind = z.infer<typeof StoreKindSchema>;

interface StoreCopyOptions {
  workspace?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  session?: string[] | undefined;
  dryRun?: boolean | undefined;
  json?: boolean | undefined;
}

type Outcome = 'copied' | 'would copy' | 'identical';

interface SessionReport {
  id: string;
  outcome: Outcome;
  source: SnapshotSummary;
  /** The target's side, read back after the copy (or as it was found, when identical). */
  target?: SnapshotSummary | undefined;
}

/**
 * `legion store copy --from files|postgres --to files|postgres`: every session (or those named)
 * read out of one store and written to the other under the same id, with its metadata, every
 * log entry, approvals, questions, usage, claim conflicts, agent state and artifacts. Each copy is read back and
 * checked by its counts and hash; a session the target holds already is skipped when identical
 * and refuses the whole copy, before anything is written, when it differs.
 */
export async function storeCopyCommand(options: StoreCopyOptions): Promise<number> {
  const from = storeKind('--from', options.from);
  const to = storeKind('--to', options.to);
  if (from === to)
    throw new LegionError(
      'invalid_option',
      `--from and --to are both "${from}": a copy needs two stores. Fix: use --from files --to postgres, or --from postgres --to files.`,
    );
  const root = resolveWorkspace(options.workspace);
  const warnings: StorageWarning[] = [];
  const onWarning = (warning: StorageWarning): void => void warnings.push(warning);
  const source = await openStore(from, root, onWarning);
  try {
    const target = await openStore(to, root, onWarning);
    try {
      const reports = await copySessions(source, target, { from, to, ids: options.session, dryRun: options.dryRun === true });
      for (const warning of warnings)
        stderr.write(`warning: ${warning.source}${warning.offset ? ` at ${warning.offset}` : ''}: ${warning.problem}\n`);
      print(reports, { from, to, dryRun: options.dryRun === true, json: options.json === true });
      return 0;
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

async function copySessions(
  source: SessionBackend,
  target: SessionBackend,
  options: { from: StoreKind; to: StoreKind; ids: string[] | undefined; dryRun: boolean },
): Promise<SessionReport[]> {
  const ids = options.ids?.length ? [...new Set(options.ids)] : (await source.sessions.list()).sessions.map((meta) => meta.id).reverse();
  // Everything is read and checked before anything is written: a conflict refuses the copy whole.
  const planned: Array<{ snapshot: SessionSnapshot; summary: SnapshotSummary; existing: SnapshotSummary | undefined }> = [];
  const conflicts: string[] = [];
  for (const id of ids) {
    const snapshot = await exportSession(source, id);
    if (!snapshot)
      throw new LegionError(
        'session_not_found',
        `Session ${id} is not in the ${options.from} store. Fix: "legion sessions" lists the sessions there (with the store selected that way); check the id.`,
        { id },
      );
    const summary = summarizeSnapshot(snapshot);
    const found = await exportSession(target, id);
    const existing = found ? summarizeSnapshot(found) : undefined;
    if (existing && existing.sha256 !== summary.sha256)
      conflicts.push(`${id} (${options.from} ${short(summary)}, ${options.to} ${short(existing)})`);
    planned.push({ snapshot, summary, existing });
  }
  if (conflicts.length > 0) {
    throw new LegionError(
      'session_conflict',
      `The ${options.to} store holds a different session under the same id: ${conflicts.join('; ')}. Nothing was copied. Fix: leave ${conflicts.length === 1 ? 'it' : 'them'} out with --session <id> for the others, or remove the ${options.to} one ("legion sessions rm <id>" with that store selected) if it is not needed.`,
      { conflicts },
    );
  }
  const reports: SessionReport[] = [];
  for (const { snapshot, summary, existing } of planned) {
    const id = snapshot.meta.id;
    if (existing) reports.push({ id, outcome: 'identical', source: summary, target: existing });
    else if (options.dryRun) reports.push({ id, outcome: 'would copy', source: summary });
    else reports.push({ id, outcome: 'copied', source: summary, target: await copyOne(target, snapshot, summary, options.to) });
  }
  return reports;
}

/** Writes one session and reads it back: a copy whose counts or hash differ is removed again and refused. */
async function copyOne(
  target: SessionBackend,
  snapshot: SessionSnapshot,
  expected: SnapshotSummary,
  to: StoreKind,
): Promise<SnapshotSummary> {
  await importSession(target, snapshot);
  const written = await exportSession(target, snapshot.meta.id);
  const summary = written ? summarizeSnapshot(written) : undefined;
  if (summary && JSON.stringify(summary) === JSON.stringify(expected)) return summary;
  await target.sessions.remove(snapshot.meta.id);
  throw new LegionError(
    'copy_mismatch',
    `Session ${snapshot.meta.id} read back from the ${to} store differs from the source (source ${short(expected)}, copy ${summary ? short(summary) : 'missing'}); the copy was removed. Fix: see the warnings above for records the ${to} store could not keep, and report it as a bug.`,
    { id: snapshot.meta.id },
  );
}

function storeKind(flag: string, value: string | undefined): StoreKind {
  const parsed = StoreKindSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new LegionError(
    'invalid_option',
    `${flag} ${value === undefined ? 'is missing' : `"${value}" is no store`}. Fix: ${flag} files or ${flag} postgres.`,
  );
}

async function openStore(kind: StoreKind, root: string, onWarning: (warning: StorageWarning) => void): Promise<SessionBackend> {
  if (kind === 'files') return new FileSessionBackend({ root, onWarning });
  const selected = storageSelection({ root });
  if (selected.kind === 'files') {
    throw new LegionError(
      'no_database',
      'No PostgreSQL database is configured to copy from or to. Fix: set LEGION_DATABASE_URL=postgres://… or "storage": { "kind": "postgres", "url": "postgres://…" } in the global config.',
    );
  }
  return openPostgresBackend(selected, onWarning);
}

function short(summary: SnapshotSummary): string {
  return `${counts(summary)}, sha256 ${summary.sha256.slice(0, 12)}`;
}

function counts(summary: SnapshotSummary): string {
  return `${summary.conversations} conversations, ${summary.entries} entries, ${summary.approvals} approval records, ${summary.questions} question records, ${summary.usage} usage records, ${summary.conflicts} conflict records, ${summary.agentState} state documents, ${summary.artifacts} artifacts`;
}

function print(reports: SessionReport[], options: { from: StoreKind; to: StoreKind; dryRun: boolean; json: boolean }): void {
  if (options.json) {
    stdout.json({ from: options.from, to: options.to, dryRun: options.dryRun, sessions: reports });
    return;
  }
  if (reports.length === 0) {
    stdout.write(`The ${options.from} store holds no session: nothing to copy.\n`);
    return;
  }
  for (const report of reports) {
    const sides = report.target
      ? `${options.from} sha256 ${report.source.sha256}, ${options.to} sha256 ${report.target.sha256}`
      : `sha256 ${report.source.sha256}`;
    stdout.write(`${report.outcome.padEnd(10)} ${report.id}: ${counts(report.source)}; ${sides}\n`);
  }
  const tally = (outcome: Outcome): number => reports.filter((report) => report.outcome === outcome).length;
  stdout.write(
    options.dryRun
      ? `Dry run: ${tally('would copy')} would be copied from ${options.from} to ${options.to}, ${tally('identical')} already there; nothing was written.\n`
      : `Copied ${tally('copied')} sessions from ${options.from} to ${options.to} (each read back: counts and hashes match), ${tally('identical')} already there and identical.\n`,
  );
}
