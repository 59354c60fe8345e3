import { SessionDriver, type Legion, type LegionEvent } from '@legion-collective/core';
import * as vscode from 'vscode';
import { describeSavedRule } from './approval-rule-line.js';
import { describeClaimConflict } from './claim-conflict-line.js';
import { parseChatRequest } from './chat-request.js';
import { chatTarget, followupAgents, type ChatResultMetadata } from './chat-target.js';
import { entryAgentFor, readEditorSettings } from './editor-settings.js';
import { describeToolCall, escapeMarkdown } from './tool-call-line.js';
import { MEDIUM, type ChatUserSurface } from './chat-surface.js';
import type { LegionHost } from './legion-host.js';
import { visibleText } from './visible-text.js';

interface LegionChatResult extends vscode.ChatResult {
  metadata: ChatResultMetadata;
}

/** `@legion`: the chat's messages go to the collective's entry agent (or `/to <agent>`), as the REPL sends them. */
export function registerChatParticipant(host: LegionHost, surface: ChatUserSurface): vscode.Disposable {
  const participant = vscode.chat.createChatParticipant('legion-collective.legion', async (request, context, stream, token) => {
    try {
      const current = chatTarget(
        context.history.flatMap((turn) => (turn instanceof vscode.ChatResponseTurn ? [turn.result.metadata] : [])),
      );
      return await handle(host, surface, request, current, stream, token);
    } catch (error) {
      // Legion's errors name the problem and the fix (a broken config file, an unknown agent): the chat shows them as they are.
      stream.markdown(`\n\n**Legion:** ${visibleText(error instanceof Error ? error.message : String(error))}`);
      return { metadata: { participants: [] } };
    }
  });
  participant.iconPath = new vscode.ThemeIcon('organization');
  participant.followupProvider = {
    // VS Code sends a follow-up at once, as `/to <agent>` alone: the chat's next messages go to that agent.
    provideFollowups: (result: vscode.ChatResult) =>
      followupAgents(result.metadata).map((agent) => ({ prompt: agent, command: 'to', label: `Continue with ${agent}` })),
  };
  return participant;
}

/** `current`: the agent this chat talks to since its last `/to <agent>`, if any (else the entry agent). */
async function handle(
  host: LegionHost,
  surface: ChatUserSurface,
  request: vscode.ChatRequest,
  current: string | undefined,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<LegionChatResult> {
  const none: LegionChatResult = { metadata: { participants: [] } };
  if (!host.hasWorkspace()) {
    stream.markdown('This workspace has no `.legion/` folder yet.\n\n');
    stream.button({ command: 'legion.initializeWorkspace', title: 'Initialize Workspace' });
    return none;
  }
  const intent = parseChatRequest(request.command, request.prompt);
  const legion = await host.start();
  switch (intent.kind) {
    case 'invalid':
      stream.markdown(intent.problem);
      return none;
    case 'agents': {
      const entry = legion.entryAgentId();
      const lines = legion.collective
        .list()
        .map(
          (member) =>
            `- **${member.id}** (${member.type}${member.type === 'agent' ? `, ${member.model?.provider ?? '?'} / ${member.model?.model ?? '?'}` : ''})${member.id === entry ? ' — entry agent' : ''}${member.id === current ? ' — this chat talks to it' : ''}${member.description ? `: ${member.description}` : ''}`,
        );
      stream.markdown(lines.join('\n'));
      return none;
    }
    case 'sessions': {
      const current = (await host.session()).id;
      const sessions = await legion.sessions.list();
      stream.markdown(
        sessions
          .map(
            (meta) =>
              `- \`${meta.id}\`${meta.title ? ` ${escapeMarkdown(visibleText(meta.title))}` : ''} — last active ${meta.lastActiveAt}${meta.id === current ? ' (current)' : ''}`,
          )
          .join('\n') || 'No sessions yet.',
      );
      return none;
    }
    case 'new': {
      const session = await host.newSession(intent.title);
      stream.markdown(`Started session \`${session.id}\`.`);
      return none;
    }
    case 'approvals': {
      const pending = await (await SessionDriver.open(legion, { session: await host.session(), medium: MEDIUM })).pendingApprovals();
      stream.markdown(
        pending.map((view) => `- \`${view.id}\` **${view.requester}** → \`${view.tool}\` (approver ${view.approver})`).join('\n') ||
          'No pending approvals.',
      );
      return none;
    }
    case 'cost': {
      const usage = await (await host.session()).usage();
      const rows = Object.entries(usage.byParticipant).map(
        ([id, totals]) =>
          `| ${id} | ${totals.own.calls} | ${totals.own.inputTokens} | ${totals.own.outputTokens} | $${totals.own.costUsd.toFixed(4)} |`,
      );
      stream.markdown(
        `| participant | calls | input | output | cost |\n|---|---|---|---|---|\n${rows.join('\n')}\n\n**Total: $${usage.total.costUsd.toFixed(4)}** over ${usage.total.calls} model calls.`,
      );
      return none;
    }
    case 'switch': {
      const member = legion.collective.get(intent.to);
      if (member?.type !== 'agent' && member?.type !== 'mock') return noAgent(legion, intent.to, stream);
      stream.markdown(
        `This chat now talks to **${escapeMarkdown(intent.to)}**: your next messages here go to it (\`/to ${entryAgent(legion)}\` goes back to the entry agent).`,
      );
      return { metadata: { participants: [], target: intent.to } };
    }
    case 'send':
      return send(host, surface, intent.message, intent.to ?? current, stream, token);
  }
}

/** The agent a chat that never switched talks to: the config files' entry agent, else the editor's setting, else the collective's. */
function entryAgent(legion: Legion): string {
  const settings = readEditorSettings((key) => vscode.workspace.getConfiguration('legion').get(key));
  return entryAgentFor(legion.config.entryAgent ? legion.entryAgentId() : undefined, settings, () => legion.entryAgentId());
}

function noAgent(legion: Legion, target: string, stream: vscode.ChatResponseStream): LegionChatResult {
  stream.markdown(
    `There is no agent "${escapeMarkdown(target)}" in the collective: use one of ${legion.collective
      .agents()
      .map((agent) => `\`${agent.id}\``)
      .join(', ')}.`,
  );
  return { metadata: { participants: [] } };
}

async function send(
  host: LegionHost,
  surface: ChatUserSurface,
  message: string,
  to: string | undefined,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<LegionChatResult> {
  const legion = await host.start();
  const target = to ?? entryAgent(legion);
  const member = legion.collective.get(target);
  if (member?.type !== 'agent' && member?.type !== 'mock') return noAgent(legion, target, stream);
  // The session driver every surface drives: the chat renders its session's events and passes on what is typed.
  const driver = await SessionDriver.open(legion, { session: await host.session(), medium: MEDIUM });
  const participants = new Set<string>([target]);
  let streamed = false;
  const off = driver.onEvent((event) => {
    streamed = show(event, driver.you, target, stream, participants) || streamed;
  });
  const abort = new AbortController();
  const cancelled = token.onCancellationRequested(() => abort.abort(new Error('stopped in the chat')));
  try {
    const result = await surface.showIn(stream, () => driver.send(message, { to: target, signal: abort.signal }).done);
    if (result.status === 'success' && !streamed) stream.markdown(visibleText(result.reply));
    else if (result.status === 'error') stream.markdown(`\n\n**Error** (${result.code}): ${visibleText(result.error)}`);
    else if (result.status === 'paused') {
      const pause = driver.explainPause(result.requests);
      stream.markdown(
        `\n\n${escapeMarkdown(visibleText(pause.headline))}: decide with the buttons above, /approvals, the Legion view, the browser, or \`${visibleText(pause.approveCommand)}\`.`,
      );
    }
  } finally {
    cancelled.dispose();
    off();
  }
  return { metadata: { participants: [...participants] } };
}

/** Puts one event of the driver's session into the chat; true when it was the target's reply text. */
function show(event: LegionEvent, user: string, target: string, stream: vscode.ChatResponseStream, participants: Set<string>): boolean {
  switch (event.type) {
    case 'text:delta':
      if (event.participantId === target && event.initiator === user) {
        // Markdown stays markdown; what would hide or reorder text is shown (a chunk at a time: each character stands alone).
        stream.markdown(visibleText(event.text));
        return true;
      }
      return false;
    case 'turn:start':
      if (event.participantId !== user) participants.add(event.participantId);
      return false;
    case 'approval:decided':
      // Said where it was decided: which rule was saved, and how to see and revoke it.
      if (event.ruleId && !event.remote && event.medium === MEDIUM)
        stream.markdown(`\n\n${describeSavedRule({ ...event, ruleId: event.ruleId })}\n\n`);
      return false;
    case 'tool:call': {
      const line = describeToolCall(event.participantId, event.toolUse.name, event.toolUse.input);
      // The spinner while it runs; the chat drops progress once the reply ends, so the line stays as text too.
      stream.progress(line);
      stream.markdown(`\n\n*${escapeMarkdown(line)}*\n\n`);
      return false;
    }
    case 'claim:conflict':
      // The agent's tool result says it too, but the human should not have to open it to learn two agents collided.
      stream.markdown(`\n\n${describeClaimConflict(event)}\n\n`);
      return false;
    case 'window:guessed':
      stream.markdown(`\n\n> **Note:** ${escapeMarkdown(visibleText(event.text))}\n\n`);
      return false;
    default:
      return false;
  }
}
