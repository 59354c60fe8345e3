import { parseChatRequest } from './chat-request.js';

describe('parseChatRequest', () => {
  it('sends plain text to the entry agent', () => {
    expect(parseChatRequest(undefined, '  add a health check ')).toEqual({ kind: 'send', message: 'add a health check' });
  });

  it('reads /to from the editor command or typed in the prompt', () => {
    expect(parseChatRequest('to', 'developer fix the build')).toEqual({ kind: 'send', to: 'developer', message: 'fix the build' });
    expect(parseChatRequest(undefined, '/to @developer fix\nthe build')).toEqual({
      kind: 'send',
      to: 'developer',
      message: 'fix\nthe build',
    });
  });

  it('says how to use /to when the agent is missing', () => {
    expect(parseChatRequest('to', '  ')).toMatchObject({ kind: 'invalid', problem: expect.stringContaining('/to <agent> [message]') });
    expect(parseChatRequest(undefined, '/to')).toMatchObject({
      kind: 'invalid',
      problem: expect.stringContaining('/to <agent> [message]'),
    });
  });

  it('reads /to <agent> without a message (what a "Continue with" follow-up sends) as switching the chat to that agent', () => {
    expect(parseChatRequest('to', 'developer')).toEqual({ kind: 'switch', to: 'developer' });
    expect(parseChatRequest('to', '@developer ')).toEqual({ kind: 'switch', to: 'developer' });
    expect(parseChatRequest(undefined, '@legion /to reviewer')).toEqual({ kind: 'switch', to: 'reviewer' });
  });

  it('reads a repeated @legion mention as the participant, not as text', () => {
    expect(parseChatRequest(undefined, '@legion /to reviewer look')).toEqual({ kind: 'send', to: 'reviewer', message: 'look' });
    expect(parseChatRequest(undefined, '@legion hello')).toEqual({ kind: 'send', message: 'hello' });
  });

  it('maps the REPL-like commands', () => {
    expect(parseChatRequest('agents', '')).toEqual({ kind: 'agents' });
    expect(parseChatRequest(undefined, '/cost')).toEqual({ kind: 'cost' });
    expect(parseChatRequest('new', 'refactor')).toEqual({ kind: 'new', title: 'refactor' });
    expect(parseChatRequest('approvals', '')).toEqual({ kind: 'approvals' });
    expect(parseChatRequest('sessions', '')).toEqual({ kind: 'sessions' });
  });

  it('refuses an empty message and unknown commands with the fix', () => {
    expect(parseChatRequest(undefined, '   ')).toMatchObject({ kind: 'invalid' });
    expect(parseChatRequest('bogus', 'x')).toMatchObject({ kind: 'invalid', problem: expect.stringContaining('/agents') });
    // An unknown slash typed in the prompt is just text for the agent.
    expect(parseChatRequest(undefined, '/etc/hosts is wrong')).toEqual({ kind: 'send', message: '/etc/hosts is wrong' });
  });
});
