import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startA2aAgentServer, type A2aAgentServer } from '@legion-collective/core/testing';
import { runLegion } from './legion-process.test-support.js';

// `legion agents add --a2a URL` and the doctor's line for remote agents, through the built binary, against
// a remote agent built with @a2a-js/sdk on 127.0.0.1.

let dir: string;
let remote: A2aAgentServer | undefined;

function legion(args: string[]): ReturnType<typeof runLegion> {
  return runLegion(args, { cwd: dir, env: { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg') } });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'legion-a2a-add-'));
  expect((await legion(['init'])).status).toBe(0);
});
afterEach(async () => {
  await remote?.close();
  remote = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const noWork = { execute: async () => undefined, cancelTask: async () => undefined };

describe('legion agents add --a2a', () => {
  it("reads the card with the global config's credentials, shows it inert, and writes an a2a participant named after it", async () => {
    remote = await startA2aAgentServer({
      executor: noWork,
      name: 'Remote\u001b[2J Painter',
      description: 'Paints what it is asked to.',
      skills: [{ id: 'paint', name: 'Paint', description: 'Paints a picture.' }],
    });
    mkdirSync(join(dir, '.xdg', 'legion'), { recursive: true });
    writeFileSync(
      join(dir, '.xdg', 'legion', 'config.json'),
      JSON.stringify({ remoteAgents: { [remote.origin]: { headers: { Authorization: 'Bearer s3cret' } } } }),
    );

    const added = await legion(['agents', 'add', '--a2a', remote.cardUrl]);

    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toContain('Remote agent Remote\\x1b[2J Painter 1.0.0 (streams its answers)');
    expect(added.stdout).toContain('Paints what it is asked to.');
    expect(added.stdout).toContain('- Paint: Paints a picture.');
    expect(added.stdout).not.toContain('\u001b');
    expect(added.stdout).toContain('legion run --to remote-2j-painter');
    expect(JSON.parse(readFileSync(join(dir, '.legion/collective/participants/remote-2j-painter.json'), 'utf8'))).toEqual({
      id: 'remote-2j-painter',
      type: 'a2a',
      name: 'Remote\u001b[2J Painter',
      description: 'Paints what it is asked to.',
      url: remote.cardUrl,
    });
    expect(remote.requests.map((request) => request.headers['authorization'])).toEqual(['Bearer s3cret']);

    const listed = await legion(['agents', 'list']);
    expect(listed.stdout).toMatch(/^remote-2j-painter\s+a2a\s/m);
    const unprobed = await legion(['doctor']);
    expect(unprobed.stderr).toContain(`remote agent remote-2j-painter (${remote.cardUrl}) — skipped: its card is read only with --probe`);
    const probed = await legion(['doctor', '--probe']);
    expect(probed.stderr).toMatch(
      /✔ remote agent remote-2j-painter \(.*\) — card of "Remote\\x1b\[2J Painter" read, streams; 1 skill: Paint/,
    );
  });

  it('says clearly why when the card cannot be read, or the URL is not http(s), and writes nothing', async () => {
    const unreachable = await legion(['agents', 'add', 'far', '--a2a', 'http://127.0.0.1:9/.well-known/agent-card.json']);
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).toContain('Could not read the agent card at http://127.0.0.1:9/.well-known/agent-card.json');

    const notHttp = await legion(['agents', 'add', 'local', '--a2a', 'file:///etc/passwd']);
    expect(notHttp.status).toBe(1);
    expect(notHttp.stderr).toContain('"file:///etc/passwd" is not an http or https URL of an agent card.');

    const participants = JSON.parse((await legion(['agents', 'list', '--json'])).stdout) as { participants: Array<{ id: string }> };
    expect(participants.participants.map((participant) => participant.id)).not.toContain('far');
  });
});
