import { createInterface } from 'node:readline/promises';
import { Legion, LegionError, textOf, type Session } from '@legion-collective/core';
import { type SessionMeta } from '@legion-collective/core/backend';
import { styleFor } from '../render/style.js';
import { columns } from '../render/columns.js';
import { readableTime } from '../render/text.js';
import { messageSummary } from '../render/message-lines.js';
import { openLegion, resolveWorkspace } from '../workspace.js';
import { stdout, stderr, inertLine } from '../render/terminal-text.js';

interface SessionsOptions {
  workspace?: string;
  json?: boolean;
  yes?: boolean;
}

function warnAll(legion: Legion): void {
  // A broken session is listed here, not silently missing.
  for (const warning of legion.warnings) stderr.write(`warning: ${warning}\n`);
}

/** `legion sessions [list]`: every session, most recently active first. */
export async function sessionsListCommand(options: SessionsOptions): Promise<number> {
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  try {
    const sessions = await legion.sessions.list();
    const rows = await Promise.all(
      sessions.map(async (meta) => ({ meta, conversations: (await (await legion.sessions.get(meta.id)).listConversations()).length })),
    );
    if (options.json) {
      stdout.json({ sessions: rows.map(({ meta, conversations }) => ({ ...meta, conversations })), warnings: legion.warnings });
      return 0;
    }
    if (rows.length === 0) {
      stdout.write('No sessions yet. Start one with: legion run "hello"\n');
    } else {
      const style = styleFor(process.stdout);
      const head = ['SESSION', 'LAST ACTIVE (UTC)', 'CONVERSATIONS', 'TITLE'].map(style.dim);
      stdout.write(
        `${columns([head, ...rows.map(({ meta, conversations }) => [inertLine(meta.id), readableTime(meta.lastActiveAt), String(conversations), inertLine(meta.title ?? '')])])}\n`,
      );
    }
    warnAll(legion);
    return 0;
  } finally {
    await legion.close();
  }
}

/** `legion sessions show ID`: the session's record, its conversations, what waits for approval, and what it cost. */
export async function sessionsShowCommand(id: string, options: SessionsOptions): Promise<number> {
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  try {
    const session = await legion.sessions.get(id);
    const conversations = await Promise.all(
      (await session.listConversations()).map(async (ref) => {
        const [last] = await session.conversation(ref).recent(1);
        return {
          conversationId: ref.conversationId,
          initiator: ref.initiator,
          responder: ref.responder,
          ...(ref.name ? { name: ref.name } : {}),
          lastMessageAt: last?.at ?? null,
          lastMessage: last ? textOf(last) : null,
          last,
        };
      }),
    );
    const pending = await session.approvals.list({ status: 'pending' });
    const usage = (await session.usage()).total;
    const latest = (await legion.sessions.latest())?.id === session.id;
    if (options.json) {
      stdout.json({
        ...session.info,
        latest,
        conversations: conversations.map(({ last: _last, ...row }) => row),
        pendingApprovals: pending,
        usage,
        warnings: legion.warnings,
      });
      return 0;
    }
    const style = styleFor(process.stdout);
    const meta: SessionMeta = session.info;
    const out: string[] = [
      `${style.bold(`Session ${inertLine(meta.id)}`)}${meta.title ? `  ${inertLine(meta.title)}` : ''}${latest ? style.dim('  (latest: legion run resumes it)') : ''}`,
      `  created      ${readableTime(meta.createdAt)} UTC`,
      `  last active  ${readableTime(meta.lastActiveAt)} UTC`,
      `  model usage  ${usage.calls} call${usage.calls === 1 ? '' : 's'}, ${usage.inputTokens} in / ${usage.outputTokens} out tokens, $${usage.costUsd.toFixed(4)}${usage.unpricedCalls ? ` (+${usage.unpricedCalls} unpriced)` : ''}`,
      `  approvals    ${pending.length === 0 ? 'none waiting' : style.yellow(`${pending.length} waiting (legion approvals --session ${meta.id})`)}`,
      '',
    ];
    stdout.write(out.join('\n'));
    if (conversations.length === 0) stdout.write('No conversations yet.\n');
    else {
      const head = ['CONVERSATION', 'LAST MESSAGE (UTC)', 'LAST MESSAGE'].map(style.dim);
      stdout.write(
        `${columns([head, ...conversations.map((row) => [inertLine(row.conversationId), row.lastMessageAt ? readableTime(row.lastMessageAt) : '', row.last ? messageSummary(row.last, style, 60) : ''])])}\n`,
      );
      stdout.write(style.dim(`\nRead one with: legion log --session ${meta.id} CONVERSATION\n`));
    }
    warnAll(legion);
    return 0;
  } finally {
    await legion.close();
  }
}

/** `legion sessions rm ID`: deletes a session after a confirmation (or --yes); never one a running turn holds. */
export async function sessionsRemoveCommand(id: string, options: SessionsOptions): Promise<number> {
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  try {
    const session: Session = await legion.sessions.get(id);
    if (!options.yes) {
      if (process.stdin.isTTY !== true || process.stderr.isTTY !== true) {
        throw new LegionError(
          'usage',
          `Removing session ${id} deletes its conversations for good; there is no terminal to confirm on, so pass --yes.`,
        );
      }
      const count = (await session.listConversations()).length;
      const readline = createInterface({ input: process.stdin, output: process.stderr });
      let answer: string;
      try {
        answer = (
          await readline.question(
            `Delete session ${inertLine(id)}${session.info.title ? ` (${inertLine(session.info.title)})` : ''} and its ${count} conversation${count === 1 ? '' : 's'}? [y/N] `,
          )
        )
          .trim()
          .toLowerCase();
      } finally {
        readline.close();
      }
      if (answer !== 'y' && answer !== 'yes') {
        stderr.write('Kept it.\n');
        return 1;
      }
    }
    await legion.sessions.remove(id);
    if (options.json) stdout.json({ removed: id });
    else stdout.write(`Removed session ${id}.\n`);
    return 0;
  } finally {
    await legion.close();
  }
}

/** `legion sessions rename ID TITLE`: what `legion sessions`, `/resume`, the browser and VS Code call the session. */
export async function sessionsRenameCommand(id: string, title: string, options: SessionsOptions): Promise<number> {
  const trimmed = title.replace(/\s+/g, ' ').trim();
  if (trimmed === '') throw new LegionError('usage', 'A session title needs some words: legion sessions rename ID "what it is about".');
  if (trimmed.length > 200)
    throw new LegionError('usage', `A session title is at most 200 characters; this one has ${trimmed.length}. Say it shorter.`);
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  try {
    const session = await legion.sessions.get(id);
    await session.setTitle(trimmed);
    if (options.json) stdout.json({ id: session.id, title: trimmed });
    else stdout.write(`Session ${inertLine(session.id)} is now titled "${inertLine(trimmed)}".\n`);
    return 0;
  } finally {
    await legion.close();
  }
}
