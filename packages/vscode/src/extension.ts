import { APPROVAL_CHOICES, answerOfChoice, initWorkspace } from '@legion-collective/core';
import { ApprovalChoiceSchema } from '@legion-collective/core/vocabulary';
import { approvalButtons, choiceOfTitle } from './approval-buttons.js';
import * as vscode from 'vscode';
import { approvalDetail } from './approval-markdown.js';
import { registerChatParticipant } from './chat-participant.js';
import { ChatUserSurface } from './chat-surface.js';
import { readEditorSettings, rememberFor } from './editor-settings.js';
import { GraphPanel } from './graph-panel.js';
import { LegionHost } from './legion-host.js';
import { createLegionApi, type LegionApi } from './tool-api.js';
import { registerEditorTools } from './editor-tools.js';
import { registerViews } from './views.js';
import { errorNotice, notice, questionPrompt } from './ui-text.js';
import { visibleText } from './visible-text.js';
import { VSCODE_LM_PROVIDER, VscodeLmProvider } from './vscode-lm-provider.js';

export type { ExternalTool, ExternalToolProvider, LegionApi, ToolInfo } from './tool-api.js';

/**
 * Opens the workspace's Legion in the extension host when it has a `.legion/`, and offers
 * "Legion: Initialize Workspace" when it has not. Returns the tool API other extensions call.
 */
export function activate(context: vscode.ExtensionContext): LegionApi {
  const host = new LegionHost(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
  const surface = new ChatUserSurface();
  const api = createLegionApi(() => host.open(), host.onDidOpen);
  const graph = new GraphPanel(context.extensionPath, () => host.open());
  context.subscriptions.push(host, surface, api, graph);

  context.subscriptions.push(
    host.onDidOpen((legion) => {
      // The same door as the REPL and the browser: answered here, withdrawn there, and the reverse.
      const detach = legion.attachUser(surface.surface);
      const unregister = legion.providers.register(VSCODE_LM_PROVIDER, (model) => new VscodeLmProvider(model.model));
      context.subscriptions.push(new vscode.Disposable(detach), new vscode.Disposable(unregister));
    }),
  );
  context.subscriptions.push(
    registerChatParticipant(host, surface),
    ...registerViews(host, surface),
    ...registerEditorTools(() => host.start()),
  );

  context.subscriptions.push(
    vscode.commands.registerCommand('legion.initializeWorkspace', async () => {
      if (!host.root) return void vscode.window.showErrorMessage('Legion: open a folder first; the workspace is created in it.');
      if (host.hasWorkspace()) return void vscode.window.showInformationMessage('Legion: this folder already has a .legion/ workspace.');
      initWorkspace(host.root);
      await host.start();
      void vscode.window.showInformationMessage(
        'Legion: created .legion/ with the default team. Keys stay in your environment or ~/.config/legion, never in the workspace.',
      );
    }),
    vscode.commands.registerCommand('legion.openGraph', () => graph.show()),
    vscode.commands.registerCommand('legion.question.answer', async (id: string) => {
      const item = surface.items().find((pending) => pending.id === id);
      if (item?.kind !== 'question') return void vscode.window.showInformationMessage('Legion: that question was already answered.');
      const text = await vscode.window.showInputBox({ ...questionPrompt(item.question), ignoreFocusOut: true });
      if (text === undefined) return;
      if (!surface.answer(id, text)) void vscode.window.showInformationMessage('Legion: that question was answered elsewhere first.');
    }),
    vscode.commands.registerCommand('legion.approval.decide', async (id: string, choice?: string) => {
      const item = surface.items().find((pending) => pending.id === id);
      if (item?.kind !== 'approval') return void vscode.window.showInformationMessage('Legion: that approval was already decided.');
      // Core's vocabulary: a button passes its choice; anything else is not an answer.
      let decision = choice === undefined ? undefined : ApprovalChoiceSchema.safeParse(choice).data;
      if (choice !== undefined && decision === undefined)
        return void vscode.window.showWarningMessage(
          notice(
            `"${visibleText(choice)}" is not an approval answer: use one of ${APPROVAL_CHOICES.map((words) => words.choice).join(', ')}.`,
          ),
        );
      if (!decision) {
        // Asked from the Legion view: a dialog with all of the input as its detail, so what runs is read before answering.
        const picked = await vscode.window.showInformationMessage(
          `Legion: ${visibleText(item.request.requester)} wants to run ${visibleText(item.request.tool)}`,
          { modal: true, detail: approvalDetail(item.request) },
          ...approvalButtons().map((button) => button.title),
        );
        decision = choiceOfTitle(picked);
      }
      if (!decision) return;
      if (decision === 'reject') {
        const reason = await vscode.window.showInputBox({
          title: `Reject ${visibleText(item.request.tool)}`,
          prompt: 'Why (the agent reads this)',
          ignoreFocusOut: true,
        });
        if (reason === undefined) return;
        surface.decide(answerOfChoice({ id, choice: 'reject', ...(reason ? { reason } : {}) }));
      } else {
        const settings = readEditorSettings((key) => vscode.workspace.getConfiguration('legion').get(key));
        // The deprecated `legion.approveAlways: "session"` (older setups) keeps "Approve always" to the session, never widening it to a rule; "Approve for this session" is its own button now.
        const remember = decision === 'always' ? rememberFor(settings) : decision === 'session' ? 'session' : undefined;
        if (remember === 'always') {
          // As the terminal menu's 3: a call no rule can approve (a compound shell command) stays asked, with why.
          const legion = await host.start();
          // Tools of providers not listed yet (MCP servers, other extensions) are known once ready.
          await legion.tools.ready();
          const rule = legion.approvalRules.patternFor(item.request);
          if (!rule.ok)
            return void vscode.window.showWarningMessage(
              notice(
                `no "always" rule can approve this call: ${rule.error}. Approve it once, or "Approve for this session" to allow ${item.request.tool} to ${item.request.requester} for this session.`,
              ),
            );
        }
        surface.decide(answerOfChoice({ id, choice: remember ?? 'once' }));
      }
    }),
  );

  if (host.hasWorkspace()) {
    // Files open at once; a PostgreSQL workspace connects without holding up activation.
    host.start().catch((error: unknown) => {
      // A broken config or an unreachable database names the file or URL and the fix: show it; the chat repeats it on use.
      void vscode.window.showErrorMessage(errorNotice(error));
    });
  }
  return api;
}

export function deactivate(): void {}
