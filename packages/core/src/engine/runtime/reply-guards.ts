import type { LLMProvider, ModelResponse } from '../../model/index.js';
import type { RuntimeOutcome } from '../../session/index.js';

/**
 * Why a model's reply may not join the conversation, if it may not: it is larger than
 * `limits.maxReplyBytes`, or it holds nothing. Either ends the turn with nothing appended.
 */
export function refusedReply(
  response: ModelResponse,
  agentId: string,
  provider: LLMProvider,
  maxReplyBytes: number,
): RuntimeOutcome | undefined {
  const replyBytes = response.content.reduce(
    (total, block) => total + Buffer.byteLength(block.type === 'text' ? block.text : JSON.stringify(block), 'utf8'),
    0,
  );
  if (replyBytes > maxReplyBytes) {
    return {
      status: 'error',
      code: 'reply_too_large',
      error: `${agentId}'s model replied with ${replyBytes} bytes; the limit is ${maxReplyBytes} (limits.maxReplyBytes). Nothing was added to the conversation.`,
    };
  }
  // A reply with nothing in it is no answer: appended, it would also be refused by the API in every later request.
  if (response.content.length === 0) {
    return {
      status: 'error',
      code: 'provider_empty_response',
      error: `${agentId}'s model call failed: ${provider.name} (${provider.model}) answered with nothing (finish reason "${response.finishReason}"); nothing was added to the conversation. Try again, or check the endpoint.`,
    };
  }
  return undefined;
}
