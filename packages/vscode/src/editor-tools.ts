import type { Legion } from '@legion-collective/core';
import * as vscode from 'vscode';

interface RunAgentInput {
  task: string;
  agent?: string;
}

/**
 * Legion offered to the editor's own agents (`vscode.lm.registerTool`), when the user enables
 * `legion.offerToolsToEditor`: a task for the collective goes through `runAgent`, so every tool an
 * agent then calls is under Legion's policies (asks in the chat, or is refused when denied).
 */
export function registerEditorTools(legion: () => Legion): vscode.Disposable[] {
  const tool: vscode.LanguageModelTool<RunAgentInput> = {
    async invoke(options, token) {
      if (!vscode.workspace.getConfiguration('legion').get<boolean>('offerToolsToEditor')) {
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart('Legion is not offered to the editor: the user turned legion.offerToolsToEditor off.')]);
      }
      const abort = new AbortController();
      const cancelled = token.onCancellationRequested(() => abort.abort());
      try {
        const opened = legion();
        const result = await opened.runAgent(options.input.task, { ...(options.input.agent ? { agent: options.input.agent } : {}), signal: abort.signal });
        const text = result.status === 'success' ? result.reply : result.status === 'error' ? `Error: ${result.error}` : `Paused on approvals: ${result.requests.map((request) => request.id).join(', ')}`;
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
      } finally {
        cancelled.dispose();
      }
    },
  };
  return [vscode.lm.registerTool('legion_run_agent', tool)];
}
