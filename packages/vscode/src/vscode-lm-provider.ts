import type { LLMProvider, Message, ModelRequest, StreamOptions, StreamPart } from '@legion-collective/core';
import * as vscode from 'vscode';

export const VSCODE_LM_PROVIDER = 'vscode-lm';

/**
 * An agent whose model is `{ "provider": "vscode-lm", "model": "<id or family>" }` runs on a
 * model the editor offers (`vscode.lm.selectChatModels`): Copilot users need no key of their own.
 * Core knows nothing of it; the extension registers it on the Legion's provider factory.
 */
export class VscodeLmProvider implements LLMProvider {
  readonly name = VSCODE_LM_PROVIDER;

  constructor(readonly model: string) {}

  async *stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<StreamPart> {
    const chosen = await this.choose();
    const cancel = new vscode.CancellationTokenSource();
    const onAbort = (): void => cancel.cancel();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await chosen.sendRequest(
        toChatMessages(request),
        {
          justification: 'Legion runs an agent of your collective on this model.',
          tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters })),
        },
        cancel.token,
      );
      let calledTools = false;
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) yield { type: 'text-delta', text: part.value };
        else if (part instanceof vscode.LanguageModelToolCallPart) {
          calledTools = true;
          yield { type: 'tool-call', id: part.callId, name: part.name, input: part.input };
        }
      }
      yield { type: 'finish', reason: calledTools ? 'tool_use' : 'stop' };
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      cancel.dispose();
    }
  }

  private async choose(): Promise<vscode.LanguageModelChat> {
    const models = await vscode.lm.selectChatModels();
    const chosen =
      models.find((model) => model.id === this.model) ??
      models.find((model) => model.family === this.model) ??
      (this.model === 'default' ? models[0] : undefined);
    if (!chosen) {
      const offered = models.map((model) => `${model.id} (${model.vendor}/${model.family})`).join(', ') || 'none';
      throw new Error(
        `vscode-lm: the editor offers no model "${this.model}". Set the agent's model to one of: ${offered}; or "default" for the first.`,
      );
    }
    return chosen;
  }
}

/** The editor's chat has no system role: the system prompt leads as the first user message. */
export function toChatMessages(request: ModelRequest): vscode.LanguageModelChatMessage[] {
  const messages: vscode.LanguageModelChatMessage[] = [];
  if (request.system) messages.push(vscode.LanguageModelChatMessage.User(request.system));
  for (const message of request.messages) messages.push(toChatMessage(message));
  return messages;
}

function toChatMessage(message: Message): vscode.LanguageModelChatMessage {
  const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart | vscode.LanguageModelToolResultPart> = [];
  for (const block of message.content) {
    if (block.type === 'text') parts.push(new vscode.LanguageModelTextPart(block.text));
    else if (block.type === 'tool_use')
      parts.push(new vscode.LanguageModelToolCallPart(block.id, block.name, (block.input ?? {}) as object));
    else if (block.type === 'tool_result')
      parts.push(
        new vscode.LanguageModelToolResultPart(block.toolUseId, [
          new vscode.LanguageModelTextPart(block.isError ? `Error: ${block.content}` : block.content),
        ]),
      );
  }
  return message.role === 'assistant'
    ? vscode.LanguageModelChatMessage.Assistant(parts as Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart>)
    : vscode.LanguageModelChatMessage.User(parts as Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart>);
}
