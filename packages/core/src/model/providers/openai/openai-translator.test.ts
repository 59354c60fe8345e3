import { message, userText } from '../__fixtures__/llm-server.js';
import { fromOpenAIFinishReason, toOpenAIMessages, toOpenAITools } from './openai-translator.js';

describe('toOpenAIMessages', () => {
  it('puts the system prompt first and writes tool calls and results as Chat Completions does', () => {
    const messages = [
      userText('Count the words of two texts'),
      message('assistant', [
        { type: 'text', text: 'Counting both.' },
        { type: 'tool_use', id: 'call_1', name: 'word_count', input: { text: 'one two' } },
        { type: 'tool_use', id: 'call_2', name: 'word_count', input: { text: 'three' } },
      ]),
      message('user', [
        { type: 'tool_result', toolUseId: 'call_1', content: '{"words":2}' },
        { type: 'tool_result', toolUseId: 'call_2', content: 'word_count timed out', isError: true },
      ]),
      message('assistant', [{ type: 'text', text: 'Two words; the second count failed.' }]),
    ];

    expect(toOpenAIMessages('You count words.', messages)).toEqual([
      { role: 'system', content: 'You count words.' },
      { role: 'user', content: 'Count the words of two texts' },
      {
        role: 'assistant',
        content: 'Counting both.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'word_count', arguments: '{"text":"one two"}' } },
          { id: 'call_2', type: 'function', function: { name: 'word_count', arguments: '{"text":"three"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"words":2}' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: word_count timed out' },
      { role: 'assistant', content: 'Two words; the second count failed.' },
    ]);
  });

  it('sends content null for an assistant message with only tool calls, and {} for missing input', () => {
    expect(
      toOpenAIMessages('', [message('assistant', [{ type: 'tool_use', id: 'call_1', name: 'list_participants', input: undefined }])]),
    ).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'list_participants', arguments: '{}' } }],
      },
    ]);
  });

  it('places tool messages before the text the same user message carries', () => {
    const messages = [
      message('assistant', [{ type: 'tool_use', id: 'call_1', name: 'word_count', input: { text: 'a' } }]),
      message('user', [
        { type: 'text', text: 'and also this' },
        { type: 'tool_result', toolUseId: 'call_1', content: '{"words":1}' },
      ]),
    ];

    expect(toOpenAIMessages('', messages).slice(1)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: '{"words":1}' },
      { role: 'user', content: 'and also this' },
    ]);
  });

  it('merges consecutive user texts (a failed turn leaves two) and skips empty assistant messages', () => {
    expect(toOpenAIMessages('sys', [userText('one'), message('assistant', [{ type: 'text', text: '' }]), userText('two')])).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'one\n\ntwo' },
    ]);
  });
});

describe('toOpenAITools', () => {
  it('wraps each tool as a function with its JSON schema of type object', () => {
    expect(
      toOpenAITools([{ name: 'word_count', description: 'Counts words', parameters: { properties: { text: { type: 'string' } } } }]),
    ).toEqual([
      {
        type: 'function',
        function: {
          name: 'word_count',
          description: 'Counts words',
          parameters: { type: 'object', properties: { text: { type: 'string' } } },
        },
      },
    ]);
  });
});

describe('fromOpenAIFinishReason', () => {
  it.each([
    ['stop', 'stop'],
    ['tool_calls', 'tool_use'],
    ['function_call', 'tool_use'],
    ['length', 'max_tokens'],
    ['content_filter', 'refusal'],
    [null, 'other'],
  ])('%s → %s', (reason, expected) => {
    expect(fromOpenAIFinishReason(reason)).toBe(expected);
  });
});
