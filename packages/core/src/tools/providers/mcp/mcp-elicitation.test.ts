import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Legion } from '../../../Legion.js';
import type { LegionEvents } from '../../../kernel/events/event-types.js';
import type { ToolResultBlock } from '../../../kernel/message.js';
import type { ModelRequest } from '../../../model/providers/llm-provider.js';
import type { UserQuestion } from '../../../hitl/index.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../../testing/index.js';
import { stdioServer } from './__fixtures__/mcp-servers.js';

const FORM_TOOL = 'mcp__everything__trigger-elicitation-request';
const URL_TOOL = 'mcp__everything__trigger-url-elicitation';
const ELICITING_SERVER = fileURLToPath(new URL('./__fixtures__/eliciting-server.mjs', import.meta.url));

function lastResult(request: ModelRequest): ToolResultBlock {
  const block = request.messages.at(-1)!.content.find((part): part is ToolResultBlock => part.type === 'tool_result');
  if (!block) throw new Error('expected a tool result');
  return block;
}

/**
 * server-everything offers its elicitation tools only to a client that declares the capability,
 * and adds them after `initialize`, announcing them with tools/list_changed: their arrival is
 * what says the capability was declared and the change notification handled.
 */
async function toolArrives(legion: Legion, name: string): Promise<void> {
  const registered = new Promise<void>((resolve) => {
    const stop = legion.events.on('tool:register', (event) => {
      if (event.name !== name) return;
      stop();
      resolve();
    });
  });
  const listed = (await legion.describeTools('dev')).tools.some((tool) => tool.name === name);
  if (!listed) await registered;
}

describe('elicitation from an MCP server Legion consumes', () => {
  let test: TestLegion;
  let legion: Legion | undefined;
  afterEach(async () => {
    await legion?.close();
    await test?.cleanup();
    legion = undefined;
  });

  async function open(steps: Parameters<typeof createTestLegion>[0]['scripts'], elicitingArgs: string[] = []): Promise<Legion> {
    test = createTestLegion({ participants: [userParticipant(), agentParticipant('dev', { delegation: 'none' })], scripts: steps });
    writeFileSync(
      join(test.root, '.legion', 'config.json'),
      JSON.stringify({
        version: 1,
        mcpServers: {
          everything: stdioServer('@modelcontextprotocol/server-everything'),
          eliciting: { command: process.execPath, args: [ELICITING_SERVER, ...elicitingArgs] },
        },
        policies: { 'mcp__everything__*': 'auto', 'mcp__eliciting__*': 'auto' },
      }),
    );
    await test.legion.close();
    return (legion = test.reopen());
  }

  it('asks the user through the attached surface, naming the server and the agent, checks the answer against the form, and returns it', async () => {
    const opened = await open({
      dev: [
        { toolCalls: [{ id: 'form', name: FORM_TOOL, input: {} }] },
        (request) => {
          const result = lastResult(request);
          expect(result.isError).toBeFalsy();
          expect(result.content).toContain('✅ User provided the requested information!');
          expect(result.content).toContain('- Name: Ada Lovelace');
          expect(result.content).toContain('- Agreed to terms: true');
          expect(result.content).toContain('- Favorite Integer: 7');
          // Fields left out get the form's defaults, as a form would have submitted them.
          expect(result.content).toContain('- Favorite Number: 3.14');
          return { text: 'Thanks, Ada.' };
        },
      ],
    });
    const questions: UserQuestion[] = [];
    const answers = [
      'integer: 500\ncheck: maybe',
      'name: Ada Lovelace\ncheck: yes\ninteger: 7\nuntitledSingleSelectEnum: Joey\ntitledSingleSelectEnum: Wonder Woman',
    ];
    opened.attachUser({
      medium: 'terminal',
      ask: async (question) => {
        questions.push(question);
        return answers.shift() ?? 'cancel';
      },
    });
    await toolArrives(opened, FORM_TOOL);

    const session = await opened.sessions.create();
    expect(await opened.send(session, 'Fill in the form.')).toMatchObject({ status: 'success', reply: 'Thanks, Ada.' });

    expect(questions).toHaveLength(2);
    const [first, second] = questions;
    expect(first).toMatchObject({
      from: 'dev',
      user: { id: 'user' },
      chain: ['user', 'dev'],
      conversation: { sessionId: session.id, conversationId: 'user__dev' },
    });
    expect(first!.text).toMatch(
      /^MCP server "everything" asks you, during a tool call by dev \(trigger-elicitation-request\):\nPlease provide inputs for the following fields:\n/,
    );
    expect(first!.text).toContain('- name (text, required): String — Your full, legal name');
    expect(first!.text).toContain('- integer (whole number, from 1, to 100, default 42): Integer');
    expect(first!.text).toContain(
      '- titledSingleSelectEnum (one of hero-1 (Superman), hero-2 (Green Lantern), hero-3 (Wonder Woman), default hero-1)',
    );
    expect(first!.text).toContain('"decline" to refuse, or "cancel"');
    // The first answer did not fit: asked again, with what was wrong.
    expect(second!.text).toMatch(
      /^That answer does not fit the form: check cannot be "maybe"; name is required; integer must be at most 100\. Please answer again\.\n\nMCP server "everything"/,
    );
    test.assertScriptsDone();
  });

  it("returns the user's decline, and a URL request shows the page and its host", async () => {
    const opened = await open({
      dev: [
        { toolCalls: [{ id: 'form', name: FORM_TOOL, input: {} }] },
        (request) => {
          expect(lastResult(request).content).toContain('❌ User declined to provide the requested information.');
          return {
            toolCalls: [{ id: 'url', name: URL_TOOL, input: { url: 'https://auth.example.com/consent?x=1', message: 'Grant access' } }],
          };
        },
        (request) => {
          expect(lastResult(request).content).toContain('✅ User completed the URL elicitation flow.');
          return { text: 'Declined the form, granted access.' };
        },
      ],
    });
    const questions: UserQuestion[] = [];
    const answers = ['Decline', 'done'];
    opened.attachUser({ medium: 'web', ask: async (question) => (questions.push(question), answers.shift() ?? 'cancel') });
    await toolArrives(opened, URL_TOOL);

    expect(await opened.send(await opened.sessions.create(), 'Try both.')).toMatchObject({
      status: 'success',
      reply: 'Declined the form, granted access.',
    });
    expect(questions[1]!.text).toContain(
      'Grant access\n\nIt asks you to open this page (on auth.example.com) and finish there:\nhttps://auth.example.com/consent?x=1\n\nAnswer "done" once finished',
    );
    test.assertScriptsDone();
  });

  it('with no surface that answers questions (headless), declines at once with the reason, and reports it', async () => {
    const opened = await open({
      dev: [
        { toolCalls: [{ id: 'form', name: FORM_TOOL, input: {} }] },
        (request) => {
          const { content } = lastResult(request);
          expect(content).toContain('❌ User declined to provide the requested information.');
          // server-everything shows the raw result: the reason travels in its _meta.
          expect(content).toContain(
            '"legion-collective/reason": "No user surface that answers questions is attached (a headless run): nobody can answer now."',
          );
          return { text: 'Nobody to ask.' };
        },
      ],
    });
    const errors: Array<LegionEvents['error:raised']> = [];
    opened.events.on('error:raised', (event) => errors.push(event));
    await toolArrives(opened, FORM_TOOL);

    expect(await opened.send(await opened.sessions.create(), 'Fill in the form.')).toMatchObject({
      status: 'success',
      reply: 'Nobody to ask.',
    });
    expect(errors).toContainEqual(
      expect.objectContaining({
        scope: 'mcp server everything',
        code: 'mcp_elicitation_declined',
        message: expect.stringContaining('declined: No user surface that answers questions is attached'),
      }),
    );
    test.assertScriptsDone();
  });

  // A 2025-era server sends elicitation/create; a 2026-07-28 one puts it in an input_required result, which the SDK
  // hands to the same handler. What differs: the SDK keeps only the fields of the 2026 result, so Legion's reason for
  // declining (in _meta) does not reach a 2026-07-28 server.
  for (const [revision, args, reasonOf] of [
    ['2025-11-25', ['--legacy-only'], (reason: string) => ({ _meta: { 'legion-collective/reason': reason } })],
    ['2026-07-28', [], () => ({})],
  ] as const) {
    it(`refuses what a hostile ${revision} server asks without asking the user: too many fields, a name that forges a line, a nested object, a file: URL; strips escapes from what it shows`, async () => {
      const hostile = ['too-many-fields', 'forged-name', 'nested-object', 'file-url'];
      const opened = await open(
        {
          dev: [
            { toolCalls: [{ id: 'approve', name: 'mcp__eliciting__ask', input: { case: 'approve' } }] },
            (request) => {
              expect(JSON.parse(lastResult(request).content)).toEqual({ action: 'accept', content: { approve: true } });
              return { toolCalls: hostile.map((name) => ({ id: name, name: 'mcp__eliciting__ask', input: { case: name } })) };
            },
            (request) => {
              const results = request.messages.at(-1)!.content.filter((part): part is ToolResultBlock => part.type === 'tool_result');
              const byId = Object.fromEntries(results.map((result) => [result.toolUseId, result.content]));
              expect(JSON.parse(byId['too-many-fields']!)).toEqual({
                action: 'decline',
                ...reasonOf(
                  'its elicitation request is not one Legion accepts: requestedSchema has 40 properties; at most 32 are accepted',
                ),
              });
              expect(JSON.parse(byId['forged-name']!)).toMatchObject({
                action: 'decline',
                ...reasonOf(expect.stringContaining('is not a plain name')),
              });
              expect(JSON.parse(byId['file-url']!)).toEqual({
                action: 'decline',
                ...reasonOf('its elicitation request is not one Legion accepts: url must be http or https, not file:'),
              });
              // Not even a valid elicitation by MCP's schema: the SDK answers the server with an error (its long text is evicted to an artifact).
              expect(results.find((result) => result.toolUseId === 'nested-object')).toMatchObject({ isError: true });
              return { text: 'Refused.' };
            },
          ],
        },
        [...args],
      );
      const questions: UserQuestion[] = [];
      opened.attachUser({ medium: 'terminal', ask: async (question) => (questions.push(question), 'yes') });

      const outcome = await opened.send(await opened.sessions.create(), 'Ask away.');
      expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: 'success', reply: 'Refused.' });
      expect(questions).toHaveLength(1);
      expect(questions[0]!.text).toContain(
        'MCP server "eliciting" asks you, during a tool call by dev (ask):\nDeploy to production?[2J]0;owned\nReally?\n\n- approve (yes or no, required): Approve[31m\n',
      );
      expect(questions[0]!.text).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/);
      test.assertScriptsDone();
    });
  }
});
