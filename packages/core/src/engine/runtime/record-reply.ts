import { settleSentRequest } from '../../model/index.js';
import type { Message } from '../../kernel/index.js';
import type { LLMProvider } from '../../model/index.js';
import type { TurnContext } from '../../session/index.js';
import type { AnsweredCall } from './model-call.js';
import type { UsageRecorder } from './usage-recorder.js';

/**
 * Appends the model's reply as the agent's message, records what the call cost, and
 * ends the call's trace span with that cost. Returns the message as appended.
 */
export async function recordReply(
  turn: TurnContext,
  agentId: string,
  provider: LLMProvider,
  usage: UsageRecorder,
  call: AnsweredCall,
): Promise<Message> {
  const { response } = call;
  const assistant = await turn.conversation.append(
    {
      role: 'assistant',
      content: response.content,
      ...(response.usage ? { usage: response.usage } : {}),
      model: `${provider.name}/${provider.model}`,
    },
    agentId,
  );
  // A reply without usage leaves nothing to trust in the record of its request: dropped, not kept per conversation.
  settleSentRequest(turn.conversation, assistant);
  const costUsd = response.usage ? await usage.record(turn, agentId, provider, response.usage, turn.frames) : undefined;
  call.chat?.answered(response, call.answeredAt, costUsd);
  return assistant;
}
