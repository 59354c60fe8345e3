import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  WorkspacePaths,
  currentProcessIdentity,
  processStartTime,
  processState,
  type ProcessIdentity,
  ProcessIdentitySchema,
  readRegularFileSync,
} from '../../store/index.js';
import type { ToolContext } from '../tool.js';
import { killMarked } from './containment.js';
import { signalGroup } from './signal-group.js';

/** What a tool's process group was started for, so that what it leaves behind can be found. */
export interface GroupPurpose {
  /** `.legion/run/processes` of the workspace. */
  recordsDir: string;
  toolUseId: string;
  sessionId?: string | undefined;
  conversationId?: string | undefined;
}

/** The purpose of a group a tool call starts; none outside a Legion workspace (nowhere to keep records). */
export function purposeOf(context: Pick<ToolContext, 'workspaceRoot' | 'toolUseId' | 'conversation'>): GroupPurpose | undefined {
  if (context.workspaceRoot === undefined) return undefined;
  const paths = new WorkspacePaths(context.workspaceRoot);
  if (!existsSync(paths.legionDir)) return undefined;
  return {
    recordsDir: paths.processesDir,
    toolUseId: context.toolUseId,
    sessionId: context.conversation.sessionId,
    conversationId: context.conversation.conversationId,
  };
}

const RecordSchema = z.lazy(() =>
  z.object({
    version: z.literal(1),
    pgid: z.number().int().positive(),
    /** The group leader's start time: a pid reused by another process has another. */
    startTime: z.string().optional(),
    command: z.string(),
    toolUseId: z.string(),
    sessionId: z.string().optional(),
    conversationId: z.string().optional(),
    owner: ProcessIdentitySchema,
    supervisor: z.number().int().optional(),
    /** The environment marker of its processes, where they are found that way (process-group+environment). */
    marker: z
      .string()
      .regex(/^[0-9a-f]+$/)
      .optional(),
    startedAt: z.string(),
  }),
);
export type ProcessRecord = z.infer<typeof RecordSchema>;

/** Writes the record of a group just started; returns the function that removes it once the group is gone. */
export function recordGroup(
  purpose: GroupPurpose,
  group: { pgid: number; command: string; supervisor?: number | undefined; marker?: string | undefined },
): () => void {
  const startTime = processStartTime(group.pgid);
  const record: ProcessRecord = {
    version: 1,
    pgid: group.pgid,
    ...(startTime ? { startTime } : {}),
    command: group.command.slice(0, 500),
    toolUseId: purpose.toolUseId,
    ...(purpose.sessionId ? { sessionId: purpose.sessionId } : {}),
    ...(purpose.conversationId ? { conversationId: purpose.conversationId } : {}),
    owner: currentProcessIdentity(),
    ...(group.supervisor ? { supervisor: group.supervisor } : {}),
    ...(group.marker ? { marker: group.marker } : {}),
    startedAt: new Date().toISOString(),
  };
  const name = `${group.pgid}-${startTime ?? Date.now()}.json`;
  const file = join(purpose.recordsDir, name);
  // Written aside and renamed: another process reaping leftovers must never read (and drop as torn) a record half written.
  const temp = join(purpose.recordsDir, `.${name}.${process.pid}.tmp`);
  try {
    mkdirSync(purpose.recordsDir, { recursive: true });
    // Not fsynced: after a power loss the processes are gone too.
    writeFileSync(temp, JSON.stringify(record));
    renameSync(temp, file);
  } catch {
    rmSync(temp, { force: true });
    // A read-only workspace still runs tools; only the after-crash cleanup is lost.
    return () => undefined;
  }
  return () => rmSync(file, { force: true });
}

export interface ReapedGroup {
  record: ProcessRecord;
  /** Whether anything of the group was still running and was killed. */
  killed: boolean;
}

/**
 * Ends the process groups that tools of a Legion process that is gone left
 * running (the supervisor should have, unless it was killed too), and forgets
 * their records. With `toolUseIds`, ends those tools' groups even when this
 * process started them: their calls were marked interrupted, so nothing waits
 * on them. Groups of another live process, or of one this process cannot see
 * (another machine or pid namespace), are left alone.
 */
export function reapLeftoverGroups(recordsDir: string, options: { toolUseIds?: ReadonlySet<string> } = {}): ReapedGroup[] {
  let names: string[];
  try {
    names = readdirSync(recordsDir);
  } catch {
    return [];
  }
  removeAbandonedTemps(recordsDir, names);
  names = names.filter((name) => name.endsWith('.json') && !name.startsWith('.'));
  const me = currentProcessIdentity();
  const reaped: ReapedGroup[] = [];
  for (const name of names) {
    const file = join(recordsDir, name);
    const record = readRecord(file);
    if (!record) {
      // Torn by a crash while it was written: it can no longer name a group safely.
      rmSync(file, { force: true });
      continue;
    }
    const mine = sameProcess(record.owner, me);
    const wanted = options.toolUseIds?.has(record.toolUseId) ?? false;
    if (mine ? !wanted : processState(record.owner) !== 'dead') continue;
    reaped.push({ record, killed: killIfSameGroup(record) });
    rmSync(file, { force: true });
  }
  return reaped;
}

/** One line for a person: which command was ended, and why. */
export function describeReaped(reaped: ReapedGroup): string {
  const { record } = reaped;
  return `ended process group ${record.pgid} ("${record.command.slice(0, 80)}") that tool call ${record.toolUseId} left running when Legion (pid ${record.owner.pid}) stopped`;
}

/** A record being written sits under a temp name with its writer's pid; a dead writer's temp will never be renamed. */
function removeAbandonedTemps(recordsDir: string, names: string[]): void {
  for (const name of names) {
    const writer = /^\..*\.(\d+)\.tmp$/.exec(name)?.[1];
    if (writer === undefined || pidAlive(Number(writer))) continue;
    rmSync(join(recordsDir, name), { force: true });
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killIfSameGroup(record: ProcessRecord): boolean {
  const leaderStart = processStartTime(record.pgid);
  // The leader's pid now belongs to another process: the group we started is gone, and this one is not ours.
  if (leaderStart !== undefined && record.startTime !== undefined && leaderStart !== record.startTime) return false;
  // With the leader gone, the kernel keeps its pid from reuse while any member of the group lives, so these are ours.
  const killed = signalGroup(record.pgid, 'SIGKILL');
  // A marker is random per command: whatever still carries it is the command's, whatever group it moved to.
  return (record.marker !== undefined && killMarked([record.marker]) > 0) || killed;
}

function sameProcess(a: ProcessIdentity, b: ProcessIdentity): boolean {
  return a.pid === b.pid && a.host === b.host && a.startTime === b.startTime && a.bootId === b.bootId;
}

function readRecord(file: string): ProcessRecord | undefined {
  try {
    const parsed = RecordSchema.safeParse(JSON.parse(readRegularFileSync(file).toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
