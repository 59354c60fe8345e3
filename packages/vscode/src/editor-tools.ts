import type { Legion } from '@legion-collective/core';
import * as vscode from 'vscode';
import { CALL_TOOL_TOOL, EDITOR_BUILTIN_TOOLS, EDITOR_TOOL_PREFIX, LIST_TOOLS_TOOL, RUN_AGENT_TOOL } from './editor-tool-catalogue.js';
import { notice } from './ui-text.js';
import { visibleText } from './visible-text.js';
import {
  ConfirmedCalls,
  editorConfirmationStands,
  judgeEditorCall,
  listEditorTools,
  resolveEditorCall,
  runAgentForEditor,
  runEditorCall,
} from './editor-tool-calls.js';

const OFF = 'Legion is not offered to the editor: the user turned legion.offerToolsToEditor off.';

function offered(): boolean {
  return vscode.workspace.getConfiguration('legion').get<boolean>('offerToolsToEditor') === true;
}

function text(value: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
}

/** Runs `work` with an AbortSignal that follows the editor's cancellation. */
async function cancellable<T>(token: vscode.CancellationToken, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const cancelled = token.onCancellationRequested(() => abort.abort());
  try {
    return await work(abort.signal);
  } finally {
    cancelled.dispose();
  }
}

/** A Legion tool for the editor's agents: `legion_<builtin>` or `legion_call_tool`, through Legion's policies as the user. */
function policedTool(name: string, legion: () => Promise<Legion>, confirmed: ConfirmedCalls): vscode.LanguageModelTool<unknown> {
  return {
    async prepareInvocation(options) {
      const resolved = resolveEditorCall(name, options.input);
      if (!offered() || !resolved.ok) return { invocationMessage: `Legion: ${name}` };
      const judged = await judgeEditorCall(await legion(), resolved.call);
      if (judged.mode !== 'confirm') {
        confirmed.notAsked(name, resolved.call);
        return { invocationMessage: judged.mode === 'refuse' ? `Legion refuses ${resolved.call.tool}` : `Legion: ${resolved.call.tool}` };
      }
      // Through legion_call_tool, Legion's modal asks in invoke: VS Code's "Always allow" of it would approve every tool.
      if (!editorConfirmationStands(name)) return { invocationMessage: `Legion: ${resolved.call.tool} (asks you first)` };
      confirmed.asked(name, resolved.call);
      return {
        invocationMessage: `Legion: ${resolved.call.tool}`,
        confirmationMessages: {
          title: `Legion: run ${visibleText(resolved.call.tool)}?`,
          message: new vscode.MarkdownString().appendText(visibleText(judged.question)),
        },
      };
    },
    async invoke(options, token) {
      if (!offered()) return text(OFF);
      const resolved = resolveEditorCall(name, options.input);
      if (!resolved.ok) return text(`Error: ${resolved.error}`);
      const call = resolved.call;
      const opened = await legion();
      const result = await cancellable(token, (signal) =>
        runEditorCall(
          opened,
          call,
          async (question) =>
            confirmed.take(name, call) ||
            (await vscode.window.showWarningMessage(notice(question), { modal: true }, 'Approve once')) === 'Approve once',
          signal,
        ),
      );
      return text(result.status === 'success' ? result.content : `Error: ${result.error}`);
    },
  };
}

/**
 * Legion offered to the editor's own agents (`vscode.lm.registerTool`), when the user enables
 * `legion.offerToolsToEditor` (package.json's `when` hides them otherwise, and `invoke` refuses):
 * `legion_run_agent` gives the collective a task; `legion_<builtin>` and `legion_call_tool` run
 * one Legion tool as the workspace's user, under the workspace's policies (deny is refused; a call
 * that needs approval is confirmed in VS Code's own confirmation before it runs).
 */
export function registerEditorTools(legion: () => Promise<Legion>): vscode.Disposable[] {
  const runAgent: vscode.LanguageModelTool<unknown> = {
    async invoke(options, token) {
      if (!offered()) return text(OFF);
      return text(await cancellable(token, async (signal) => runAgentForEditor(await legion(), options.input, signal)));
    },
  };
  const listTools: vscode.LanguageModelTool<unknown> = {
    async invoke(options) {
      if (!offered()) return text(OFF);
      return text(await listEditorTools(await legion(), options.input));
    },
  };
  const confirmed = new ConfirmedCalls();
  const policed = [CALL_TOOL_TOOL, ...EDITOR_BUILTIN_TOOLS.map((tool) => `${EDITOR_TOOL_PREFIX}${tool}`)];
  return [
    vscode.lm.registerTool(RUN_AGENT_TOOL, runAgent),
    vscode.lm.registerTool(LIST_TOOLS_TOOL, listTools),
    ...policed.map((name) => vscode.lm.registerTool(name, policedTool(name, legion, confirmed))),
  ];
}
