import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { initWorkspace, ScriptedProvider } from '@legion-collective/core';
import { DEMO_FILES, DEMO_PARTICIPANTS, DEMO_REQUEST, demoScripts } from '../demo/demo-collective.js';
import { printConversation } from '../render/conversation-printer.js';
import { stdout } from '../render/terminal-text.js';
import { openLegion } from '../workspace.js';

/**
 * A scripted collective at work, with no API key: the real engine (sessions,
 * conversations on disk, the agent loop, tools, delegation), with scripted
 * models in place of real ones.
 */
export async function demoCommand(options: { pace?: string; dir?: string }): Promise<number> {
  const pace = options.pace === undefined ? (process.stdout.isTTY ? 350 : 0) : Number(options.pace);
  if (!Number.isFinite(pace) || pace < 0) throw new Error(`--pace takes a number of milliseconds, got "${options.pace}".`);
  const root = options.dir ? resolve(options.dir) : mkdtempSync(join(tmpdir(), 'legion-demo-'));
  for (const [path, content] of Object.entries(DEMO_FILES)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  initWorkspace(root, { participants: DEMO_PARTICIPANTS, entryAgent: 'coordinator' });
  const legion = await openLegion({ root });
  const providers = Object.entries(demoScripts(pace)).map(([id, script]) => {
    const provider = new ScriptedProvider(script, `demo-${id}`);
    legion.providers.useFor(id, provider);
    return provider;
  });
  for (const participant of DEMO_PARTICIPANTS) {
    if (participant.type === 'mock') {
      legion.collective.save({ ...participant, responses: participant.responses.map((response) => ({ ...response, delayMs: pace })) });
    }
  }

  const out = stdout;
  const style = out.style;
  out.write(`${style.bold('Legion demo')} ${style.dim('— scripted models, real engine; no API key needed')}\n\n`);
  const stop = printConversation(legion.events, out, { you: 'user' });
  const session = await legion.sessions.create({ title: 'demo' });
  const result = await legion.send(session, DEMO_REQUEST);
  stop();
  for (const provider of providers) provider.assertDone();

  const conversations = await session.listConversations();
  out.write(
    `\n${style.dim(`${conversations.length} conversations saved in ${join(root, '.legion', 'sessions', session.id, 'conversations')}:`)}\n`,
  );
  for (const ref of conversations) out.write(style.dim(`  ${ref.conversationId}.jsonl\n`));
  out.write(
    `\nNext: ${style.bold('legion init')} in your project, set ANTHROPIC_API_KEY or OPENAI_API_KEY, then ${style.bold('legion')} to talk to your agents (or ${style.bold('legion run "…"')} for one headless message).\n`,
  );
  await legion.close();
  return result.status === 'success' ? 0 : 1;
}
