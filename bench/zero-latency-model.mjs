import { createServer } from 'node:http';

/**
 * A model server that answers at once, so a bench measures Legion and not a model: Anthropic's
 * Messages API and OpenAI's Chat Completions, each streaming one reply (`reply`) with usage.
 */
export async function startZeroLatencyModel(reply) {
  const sse = (events) =>
    events
      .map(([event, data]) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`)
      .join('');
  const anthropic = sse([
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'msg_bench',
          type: 'message',
          role: 'assistant',
          model: 'claude-bench',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 10, output_tokens: 0 },
        },
      },
    ],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: reply } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }],
    ['message_stop', { type: 'message_stop' }],
  ]);
  const chunk = (delta, finish) => ({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'gpt-bench',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const openai = sse([
    [undefined, chunk({ role: 'assistant', content: reply }, null)],
    [undefined, chunk({}, 'stop')],
    [
      undefined,
      {
        id: 'chatcmpl-bench',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'gpt-bench',
        choices: [],
        usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
      },
    ],
    [undefined, '[DONE]'],
  ]);
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const body = request.url?.endsWith('/v1/messages') ? anthropic : request.url?.endsWith('/chat/completions') ? openai : undefined;
      if (!body) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }).end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
