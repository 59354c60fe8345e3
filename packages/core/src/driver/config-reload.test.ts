import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LegionEvent } from '../kernel/events/event-types.js';
import type { ModelConfig, ParticipantInput } from '../team/collective/participant.js';
import { keyEnv } from '../model/providers/__fixtures__/llm-server.js';
import { useLlmServer } from '../model/providers/__fixtures__/use-llm-server.js';
import { agentParticipant, userParticipant, writeNoteTool } from '../testing/index.js';
import { SessionDriver } from './SessionDriver.js';

// An open surface (the REPL, `legion serve`) keeps one Legion for hours: edits of the config files
// made meanwhile, by hand or by `legion config set` in another shell, apply from its next message.
describe('config files edited while a surface is open', () => {
  const { server, createTestLegion } = useLlmServer();
  const claude = (model: string): ModelConfig => ({ provider: 'anthropic', model, baseURL: server.anthropicURL });

  /** An agent without a model of its own: the config's `defaultModel` is its model. */
  const onDefaultModel = (id: string): ParticipantInput => {
    const { model: _own, ...agent } = agentParticipant(id) as ParticipantInput & { model?: ModelConfig };
    return agent as ParticipantInput;
  };

  async function open(participants: ParticipantInput[]) {
    const test = createTestLegion({
      participants: [userParticipant(), ...participants],
      entryAgent: 'lead',
      env: keyEnv(server.anthropicURL),
      backend: 'memory',
    });
    server.mock.on({}, { content: 'Done.', usage: { input_tokens: 10, output_tokens: 2 } });
    const events: LegionEvent[] = [];
    test.legion.events.onAny((event) => {
      if (event.type === 'config:reloaded' || event.type === 'error:raised') events.push(event);
    });
    const driver = await SessionDriver.open(test.legion, { medium: 'terminal', session: { newSession: true } });
    const send = async (): Promise<unknown> => {
      const result = await driver.send('Go on').done;
      expect(result).toMatchObject({ status: 'success' });
      return server.anthropicBodies().at(-1)?.['model'];
    };
    const configFile = join(test.root, '.legion', 'config.json');
    const editJson = (file: string, edit: (value: Record<string, unknown>) => Record<string, unknown>): void =>
      writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>), null, 2));
    return {
      test,
      events,
      send,
      configFile,
      editJson,
      participantFile: (id: string) => join(test.root, '.legion', 'collective', 'participants', `${id}.json`),
    };
  }

  it("a participant file's new model gets the next request, and the change is said", async () => {
    const { events, send, editJson, participantFile } = await open([
      { ...agentParticipant('lead'), model: claude('claude-first') } as ParticipantInput,
    ]);
    expect(await send()).toBe('claude-first');

    editJson(participantFile('lead'), (lead) => ({ ...lead, model: claude('claude-second') }));
    expect(await send()).toBe('claude-second');
    expect(events).toEqual([expect.objectContaining({ type: 'config:reloaded', changes: ['participant lead'], restartNeeded: [] })]);

    // Nothing changed since: no reload, no event.
    expect(await send()).toBe('claude-second');
    expect(events).toHaveLength(1);
  });

  it('the workspace config applies from the next message; keys only a new process takes are named as such', async () => {
    const { events, send, configFile, editJson } = await open([onDefaultModel('lead')]);
    editJson(configFile, (config) => ({ ...config, defaultModel: claude('claude-first') }));
    expect(await send()).toBe('claude-first');

    editJson(configFile, (config) => ({ ...config, defaultModel: claude('claude-second'), shell: { passEnv: ['LANG'] } }));
    expect(await send()).toBe('claude-second');
    const reloads = events.filter((event) => event.type === 'config:reloaded');
    expect(reloads.at(-1)).toMatchObject({ changes: ['defaultModel.model', 'shell.passEnv'], restartNeeded: ['shell.passEnv'] });
  });

  it('an edit that does not load is reported once, and the last good config stays until it is fixed', async () => {
    const { events, send, configFile, editJson } = await open([onDefaultModel('lead')]);
    editJson(configFile, (config) => ({ ...config, defaultModel: claude('claude-good') }));
    expect(await send()).toBe('claude-good');
    const good = readFileSync(configFile, 'utf8');

    writeFileSync(configFile, '{ "defaultModel": ');
    expect(await send()).toBe('claude-good');
    expect(await send()).toBe('claude-good');
    const reported = events.filter((event) => event.type === 'error:raised' && event.code === 'config_invalid');
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ scope: 'config', message: expect.stringContaining('config.json') });

    writeFileSync(configFile, good.replace('claude-good', 'claude-fixed'));
    expect(await send()).toBe('claude-fixed');
  });

  it('a key added to the global config while open is redacted from then on, as one there at open is', async () => {
    const { test } = await open([onDefaultModel('lead')]);
    const secret = 'sk-added-while-open-0123456789';
    const said: string[] = [];
    test.legion.events.on('error:raised', (event) => said.push(event.message));
    writeFileSync(join(test.root, 'no-global-config.json'), JSON.stringify({ providers: { openai: { apiKey: secret } } }));
    expect(test.legion.reloadConfig()).toMatchObject({ status: 'applied', changes: ['providers.openai'] });
    test.legion.events.emit('error:raised', { scope: 'a tool', message: `it printed ${secret}` });
    expect(said).toEqual(['it printed [redacted:providers.openai.apiKey]']);
  });

  it("a policy edited in the workspace config judges the next message's tool calls: a deny added while open applies", async () => {
    server.mock.on(
      { hasToolResult: false },
      { toolCalls: [{ id: 'toolu_note', name: 'write_note', arguments: '{"path":"note.txt","text":"hi"}' }] },
    );
    server.mock.on({ hasToolResult: true }, { content: 'Done.' });
    const { test, send, configFile, editJson } = await open([
      { ...agentParticipant('lead', { tools: ['write_note'] }), model: claude('claude-notes') } as ParticipantInput,
    ]);
    test.legion.tools.register(writeNoteTool(test.root));
    const note = join(test.root, 'note.txt');
    editJson(configFile, (config) => ({ ...config, policies: { write_note: 'auto' } }));
    await send();
    expect(existsSync(note)).toBe(true);

    rmSync(note);
    editJson(configFile, (config) => ({ ...config, policies: { write_note: 'deny' } }));
    await send();
    expect(existsSync(note)).toBe(false);
    // A denied tool is not offered to the model any more, and a call to it does not run.
    const messages = server.anthropicBodies().at(-1)?.['messages'] as Array<{ content: Array<Record<string, unknown>> }>;
    expect(messages.at(-1)?.content[0]).toMatchObject({ type: 'tool_result', is_error: true });
  });
});
