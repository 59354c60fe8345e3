import { message, userText } from '../__fixtures__/llm-server.js';
import { fromAnthropicStopReason, toAnthropicMessages, toAnthropicTools } from './anthropic-translator.js';

describe('toAnthropicMessages', () => {
  it("writes text, tool_use and tool_result blocks with the API's field names", () => {
    const messages = [
      userText('Count the words of two texts'),
      message('assistant', [
        { type: 'text', text: 'Counting both.' },
        { type: 'tool_use', id: 'toolu_1', name: 'word_count', input: { text: 'one two' } },
        { type: 'tool_use', id: 'toolu_2', name: 'word_count', input: { text: 'three' } },
      ]),
      message('user', [
        { type: 'tool_result', toolUseId: 'toolu_1', content: '{"words":2}' },
        { type: 'tool_result', toolUseId: 'toolu_2', content: 'word_count timed out', isError: true },
      ]),
      message('assistant', [{ type: 'text', text: 'Two words; the second count failed.' }]),
    ];

    expect(toAnthropicMessages(messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Count the words of two texts' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Counting both.' },
          { type: 'tool_use', id: 'toolu_1', name: 'word_count', input: { text: 'one two' } },
          { type: 'tool_use', id: 'toolu_2', name: 'word_count', input: { text: 'three' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"words":2}' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'word_count timed out', is_error: true },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Two words; the second count failed.' }] },
    ]);
  });

  it('leaves is_error out of successful results rather than sending false', () => {
    const [translated] = toAnthropicMessages([
      message('user', [{ type: 'tool_result', toolUseId: 'toolu_1', content: 'ok', isError: false }]),
    ]);

    expect(translated!.content[0]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' });
    expect(translated!.content[0]).not.toHaveProperty('is_error');
  });

  it('merges consecutive messages of one role (a failed turn leaves two user messages), tool results first', () => {
    const messages = [
      userText('first try'),
      message('assistant', [{ type: 'tool_use', id: 'toolu_1', name: 'word_count', input: { text: 'a' } }]),
      message('user', [{ type: 'tool_result', toolUseId: 'toolu_1', content: '{"words":1}' }]),
      userText('second try'),
    ];

    expect(toAnthropicMessages(messages).slice(2)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"words":1}' },
          { type: 'text', text: 'second try' },
        ],
      },
    ]);
    expect(toAnthropicMessages([userText('one'), userText('two')])).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
    ]);
  });

  it('drops empty text blocks and messages left empty, which the API rejects', () => {
    const messages = [userText('hi'), message('assistant', [{ type: 'text', text: '' }]), userText('hello?')];

    expect(toAnthropicMessages(messages)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: 'hello?' },
        ],
      },
    ]);
    expect(
      toAnthropicMessages([
        message('assistant', [
          { type: 'text', text: '' },
          { type: 'tool_use', id: 't', name: 'x', input: undefined },
        ]),
      ]),
    ).toEqual([{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] }]);
  });
});

describe('toAnthropicTools', () => {
  it('sends the JSON schema as input_schema of type object', () => {
    expect(
      toAnthropicTools([
        { name: 'word_count', description: 'Counts words', parameters: { properties: { text: { type: 'string' } }, required: ['text'] } },
      ]),
    ).toEqual([
      {
        name: 'word_count',
        description: 'Counts words',
        input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      },
    ]);
  });
});

describe('fromAnthropicStopReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['tool_use', 'tool_use'],
    ['max_tokens', 'max_tokens'],
    ['model_context_window_exceeded', 'max_tokens'],
    ['refusal', 'refusal'],
    ['pause_turn', 'other'],
    [null, 'other'],
  ])('%s → %s', (reason, expected) => {
    expect(fromAnthropicStopReason(reason)).toBe(expected);
  });
});
