import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { Message } from '@legion-collective/core';
import { keptChangeContent, resultContent, toolCallView } from './tool-call-view.js';

/**
 * A conversation's recorded messages as the updates `session/load` replays: what the user wrote,
 * the entry agent's answers, its tool calls with their results (a delegation among them, titled as
 * it was live, a file change as the diff it kept), and how a turn that did not answer ended. The delegates' own conversations stay in
 * Legion's log (`legion log`), as the live thread shows them only as tool calls.
 */
export function historyUpdates(messages: readonly Message[], options: { entryAgent: string; root: string }): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    if (message.ending) {
      const why = message.ending.status === 'cancelled' ? 'cancelled' : `failed (${message.ending.code})`;
      updates.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\n(The turn was ${why}.)` } });
      continue;
    }
    for (const block of message.content) {
      if (block.type === 'text') {
        updates.push({
          sessionUpdate: message.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk',
          content: { type: 'text', text: block.text },
          messageId: message.id,
        });
      } else if (block.type === 'tool_use') {
        const view = toolCallView(block, { participant: options.entryAgent, entryAgent: options.entryAgent, root: options.root });
        updates.push({ sessionUpdate: 'tool_call', toolCallId: block.id, ...view, status: 'in_progress', rawInput: block.input });
      } else {
        updates.push({
          sessionUpdate: 'tool_call_update',
          toolCallId: block.toolUseId,
          status: block.isError === true ? 'failed' : 'completed',
          // A file change kept with the result replays as the diff it made; a failed call, or one without the record, as its text.
          content:
            block.fileChange !== undefined && block.isError !== true
              ? keptChangeContent(block.fileChange, block.content, options.root)
              : resultContent(block.content),
        });
      }
    }
  }
  return updates;
}
