import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { AnsweredElsewhereError, defineTool, type Message } from '@legion-collective/core';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '@legion-collective/core/testing';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from './terminal.test-support.js';
import { LEGION } from '../legion-process.test-support.js';

if (TMUX_MISSING)
  console.warn('repl-remote-asks-cli.test.ts: tmux is not installed, so this REPL test is skipped (apt-get install -y tmux).');

/** The text of the tool result a scripted model request ends with. */
function lastResult(request: { messages: readonly Message[] }): string {
  const block = request.messages.at(-1)?.content[0];
  return block?.type === 'tool_result' ? block.content : '?';
}

// The asking turns run in this process (a Legion whose only surface is a stand-in for a browser);
// the REPL is the built binary in a real terminal (tmux) on the same workspace: a second OS process.
describe.skipIf(TMUX_MISSING)('the REPL shows questions asked in another process, and answers them there', () => {
  let test: TestLegion;
  let terminal: TmuxTerminal;
  let home: string;
  afterEach(async () => {
    await terminal?.kill();
    await test?.cleanup();
    rmSync(home, { recursive: true, force: true });
  });

  it('a question from another process gets a card and the typed answer; one answered elsewhere leaves with a note', async () => {
    home = mkdtempSync(join(tmpdir(), 'legion-home-'));
    test = createTestLegion({
      backend: 'file',
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port should it listen on?' } }] },
          (request) => ({ text: `Port ${lastResult(request)}` }),
          { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which host name?' } }] },
          (request) => ({ text: `Host ${lastResult(request)}` }),
        ],
      },
    });
    const session = await test.legion.sessions.create();
    let webAnswers: (text: string) => void = () => undefined;
    const reasons: unknown[] = [];
    test.legion.attachUser({
      medium: 'web',
      ask: (_question, { signal }) =>
        new Promise<string>((resolve, reject) => {
          webAnswers = resolve;
          signal.addEventListener('abort', () => {
            reasons.push(signal.reason);
            reject(signal.reason);
          });
        }),
    });

    terminal = new TmuxTerminal(test.root);
    const env = ['NO_COLOR=1', `XDG_CONFIG_HOME=${join(home, '.config')}`, `HOME=${home}`];
    terminal.start(`${['env', ...env, process.execPath, LEGION].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
    await terminal.waitFor('/help for commands');

    const first = test.legion.send(session, 'start the server');
    // The question shows first as a line of the conversation (the log follower), then as a card: wait for the card.
    const card = await terminal.waitFor('question from coordinator in coordinator__user');
    expect(card).toContain('Which port should it listen on?');
    terminal.type('8080');
    expect(await first).toMatchObject({ status: 'success', reply: 'Port 8080' });
    expect(reasons).toEqual([expect.any(AnsweredElsewhereError)]);
    expect(reasons[0]).toMatchObject({ medium: 'terminal' });

    const second = test.legion.send(session, 'and the host?');
    await terminal.waitFor('Which host name?');
    webAnswers('example.org');
    expect(await second).toMatchObject({ status: 'success', reply: 'Host example.org' });
    await terminal.waitFor("coordinator's question was answered in web");
    // The card is gone: nothing waits for an answer in the terminal any more.
    expect(terminal.screen()).not.toMatch(/type your answer and press Enter\s*\n[^\n]*\n?\s*$/);
    test.assertScriptsDone();
  }, 90_000);

  /** A workspace whose agent `solo` calls `write_note` (an approval) and then answers with its result. */
  function soloWritingNotes(written: () => string): void {
    home = mkdtempSync(join(tmpdir(), 'legion-home-'));
    test = createTestLegion({
      backend: 'file',
      participants: [userParticipant(), agentParticipant('solo', { delegation: 'none' })],
      entryAgent: 'solo',
      scripts: {
        solo: [{ toolCalls: [{ name: 'write_note', input: { text: 'hello' } }] }, (request) => ({ text: `done: ${lastResult(request)}` })],
      },
    });
    test.legion.tools.register(
      defineTool({
        name: 'write_note',
        description: 'Writes a note',
        effect: 'write',
        inputSchema: z.object({ text: z.string() }),
        execute: async () => ({ status: 'success', data: written() }),
      }),
    );
  }

  it('an approval requested in another process gets a card; 1 and Enter there lets that process run the tool, once', async () => {
    let runs = 0;
    soloWritingNotes(() => `note ${++runs} written`);
    const reasons: unknown[] = [];
    test.legion.attachUser({
      medium: 'web',
      approve: (_requests, { signal }) =>
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => {
            reasons.push(signal.reason);
            reject(signal.reason);
          }),
        ),
    });
    const session = await test.legion.sessions.create();
    terminal = new TmuxTerminal(test.root);
    const env = ['NO_COLOR=1', `XDG_CONFIG_HOME=${join(home, '.config')}`, `HOME=${home}`];
    terminal.start(`${['env', ...env, process.execPath, LEGION].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
    await terminal.waitFor('/help for commands');

    const turn = test.legion.send(session, 'write a note');
    const card = await terminal.waitFor('write_note');
    expect(card).toContain('solo');
    await terminal.waitFor('1. Approve once');
    terminal.keys('1', 'Enter');
    expect(await turn).toMatchObject({ status: 'success', reply: 'done: note 1 written' });
    expect(runs).toBe(1);
    expect(reasons).toEqual([expect.objectContaining({ medium: 'terminal' })]);
    expect(await session.approvals.list()).toEqual([expect.objectContaining({ status: 'approved', decisionMedium: 'terminal' })]);
    test.assertScriptsDone();
  }, 90_000);

  it('/resume takes down the cards of the session it leaves, each with a line saying how to answer it; legion approve answers it there', async () => {
    soloWritingNotes(() => 'note written');
    // A surface that never answers keeps the turn waiting in this process, as a browser left open would.
    test.legion.attachUser({
      medium: 'web',
      approve: (_requests, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    });
    const other = await test.legion.sessions.create();
    const session = await test.legion.sessions.create();
    terminal = new TmuxTerminal(test.root);
    const env = ['NO_COLOR=1', `XDG_CONFIG_HOME=${join(home, '.config')}`, `HOME=${home}`];
    terminal.start(
      `${['env', ...env, process.execPath, LEGION, '--session', session.id].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`,
    );
    await terminal.waitFor('/help for commands');

    const turn = test.legion.send(session, 'write a note');
    await terminal.waitFor('1. Approve once');
    const [request] = await session.approvals.list();
    terminal.type(`/resume ${other.id}`);
    const note = `approval ${request!.id} (solo → write_note) stays pending in session ${session.id}:\n    /resume ${session.id}, or: legion approve ${request!.id} --session ${session.id}`;
    const shown = await terminal.waitFor(note);
    // The card is gone from the live region: no menu below the note.
    expect(shown.slice(shown.indexOf(note))).not.toContain('1. Approve once');
    expect(await session.approvals.list()).toEqual([expect.objectContaining({ status: 'pending' })]);

    const approve = spawnSync(process.execPath, [LEGION, 'approve', request!.id, '--session', session.id], {
      cwd: test.root,
      env: { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(home, '.config'), HOME: home },
      encoding: 'utf8',
    });
    expect(approve.status, approve.stderr).toBe(0);
    expect(await turn).toMatchObject({ status: 'success', reply: 'done: note written' });
    test.assertScriptsDone();
  }, 90_000);

  it('a question asked in another process before the REPL started is waiting there as a card when it starts', async () => {
    home = mkdtempSync(join(tmpdir(), 'legion-home-'));
    test = createTestLegion({
      backend: 'file',
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which region?' } }] },
          (request) => ({ text: `Region ${lastResult(request)}` }),
        ],
      },
    });
    let asked!: () => void;
    const askedPromise = new Promise<void>((resolve) => (asked = resolve));
    test.legion.attachUser({
      medium: 'web',
      ask: (_question, { signal }) =>
        new Promise<string>((_, reject) => {
          asked();
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    });
    const session = await test.legion.sessions.create();
    const turn = test.legion.send(session, 'deploy');
    await askedPromise;
    terminal = new TmuxTerminal(test.root);
    const env = ['NO_COLOR=1', `XDG_CONFIG_HOME=${join(home, '.config')}`, `HOME=${home}`];
    terminal.start(`${['env', ...env, process.execPath, LEGION].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
    await terminal.waitFor('Which region?');
    await terminal.waitFor('/help for commands');
    terminal.type('eu-west');
    expect(await turn).toMatchObject({ status: 'success', reply: 'Region eu-west' });
    test.assertScriptsDone();
  }, 90_000);
});
