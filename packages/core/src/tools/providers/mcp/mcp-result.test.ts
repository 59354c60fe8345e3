import { toToolResult } from './mcp-result.js';

describe('MCP results', () => {
  it('passes text, describes binary content, and keeps the error flag', () => {
    expect(
      toToolResult({
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      }),
    ).toEqual({ status: 'success', data: 'one\ntwo' });
    expect(toToolResult({ content: [{ type: 'audio', mimeType: 'audio/wav', data: 'AAAA' }] })).toEqual({
      status: 'success',
      data: '[audio: audio/wav, 3 bytes]',
    });
    expect(toToolResult({ content: [{ type: 'resource', resource: { uri: 'file:///a.txt', text: 'hello' } }] })).toEqual({
      status: 'success',
      data: '[resource file:///a.txt]\nhello',
    });
    expect(toToolResult({ content: [{ type: 'resource_link', uri: 'file:///b', name: 'b' }] })).toEqual({
      status: 'success',
      data: '[resource link: b file:///b]',
    });
    expect(toToolResult({ content: [], structuredContent: { n: 1 } })).toEqual({ status: 'success', data: '{"n":1}' });
    expect(toToolResult({ content: [{ type: 'text', text: 'no such repo' }], isError: true })).toEqual({
      status: 'error',
      error: 'no such repo',
    });
    expect(toToolResult({ content: [] })).toEqual({ status: 'success', data: '(no output)' });
  });
});
