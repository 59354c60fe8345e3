import { promptText } from './prompt-text.js';

describe('a prompt as the message to the entry agent', () => {
  it('keeps text, embeds an attached file under its URI, links a resource by URI, and says what it left out', () => {
    const text = promptText([
      { type: 'text', text: 'Fix this:' },
      { type: 'resource', resource: { uri: 'file:///p/a.ts', text: 'let a = 1' } },
      { type: 'resource_link', uri: 'file:///p/b.ts', name: 'b.ts' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ]);
    expect(text).toBe(
      'Fix this:\n\nfile:///p/a.ts:\n```\nlet a = 1\n```\n\n@file:///p/b.ts\n\n(an image was attached; Legion reads text only, so it was left out)',
    );
  });
});
