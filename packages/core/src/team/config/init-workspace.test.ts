import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './load-config.js';
import { WorkspacePaths } from '../../store/fs/workspace-paths.js';
import { Collective } from '../collective/Collective.js';
import { initWorkspace } from './init-workspace.js';
import type { ParticipantInput } from '../collective/participant.js';

let root: string;
let paths: WorkspacePaths;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'legion-init-'));
  paths = new WorkspacePaths(root);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Every file under `.legion/` with its bytes. */
function snapshot(): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else files[paths.display(path)] = readFileSync(path, 'utf8');
    }
  };
  walk(paths.legionDir);
  return files;
}

const EXPECTED_FILES = [
  '.legion/config.json',
  '.legion/collective/participants/user.json',
  '.legion/collective/participants/coordinator.json',
  '.legion/collective/participants/developer.json',
  '.legion/collective/participants/reviewer.json',
  '.legion/templates/researcher.json',
  '.legion/.gitignore',
];

describe('initWorkspace', () => {
  it('creates the config, the starting collective, a template and a .gitignore for sessions', () => {
    const result = initWorkspace(root);
    expect(result.root).toBe(root);
    expect(result.created).toEqual(EXPECTED_FILES);
    expect(result.kept).toEqual([]);
    expect(Object.keys(snapshot()).sort()).toEqual([...EXPECTED_FILES].sort());
    expect(existsSync(paths.toolsDir)).toBe(true);
    expect(existsSync(paths.sessionsDir)).toBe(true);
    const gitignore = readFileSync(paths.gitignoreFile, 'utf8');
    expect(gitignore.split('\n')).toContain('sessions/');
    expect(gitignore.split('\n')).toContain('run/');
  });

  it('writes files that load: a valid roster and config with the coordinator as entry agent', () => {
    initWorkspace(root);
    const collective = Collective.load(paths);
    expect(collective.ids()).toEqual(['coordinator', 'developer', 'reviewer', 'user']);
    expect(collective.defaultUser()?.id).toBe('user');
    const { config, sources } = loadConfig({ workspaceConfigFile: paths.configFile, globalConfigFile: join(root, 'no-global.json') });
    expect(sources).toEqual([paths.configFile]);
    expect(config.entryAgent).toBe('coordinator');
    expect(collective.entryAgent(config.entryAgent).id).toBe('coordinator');
    expect(collective.loadTemplate('researcher').name).toBe('Researcher');
  });

  it('keeps every existing file unchanged on a second run, and reports them as kept', () => {
    initWorkspace(root);
    // The user has edited some files since.
    writeFileSync(paths.participantFile('coordinator'), '{ "edited": "by hand, even broken" ');
    writeFileSync(paths.configFile, '{ "entryAgent": "developer" }\n');
    writeFileSync(paths.gitignoreFile, 'my own rules\n');
    const before = snapshot();
    const result = initWorkspace(root);
    expect(result.created).toEqual([]);
    expect(result.kept).toEqual(EXPECTED_FILES);
    expect(snapshot()).toEqual(before);
  });

  it('fills in only what is missing', () => {
    initWorkspace(root);
    rmSync(paths.participantFile('reviewer'));
    rmSync(paths.gitignoreFile);
    const result = initWorkspace(root);
    expect(result.created).toEqual(['.legion/collective/participants/reviewer.json', '.legion/.gitignore']);
    expect(result.kept).toHaveLength(EXPECTED_FILES.length - 2);
  });

  it('writes given participants instead of the defaults, without templates', () => {
    const participants: ParticipantInput[] = [
      { id: 'me', type: 'user', name: 'Me' },
      { id: 'zeta', type: 'agent', name: 'Zeta', systemPrompt: 'z' },
      { id: 'alpha', type: 'agent', name: 'Alpha', systemPrompt: 'a' },
    ];
    const result = initWorkspace(root, { participants, entryAgent: 'zeta' });
    expect(result.created).toEqual([
      '.legion/config.json',
      '.legion/collective/participants/me.json',
      '.legion/collective/participants/zeta.json',
      '.legion/collective/participants/alpha.json',
      '.legion/.gitignore',
    ]);
    expect(existsSync(paths.templatesDir)).toBe(false);
    expect(JSON.parse(readFileSync(paths.configFile, 'utf8'))).toEqual({ version: 1, entryAgent: 'zeta' });
  });

  it('does not name an entry agent that does not exist', () => {
    initWorkspace(root, {
      participants: [
        { id: 'me', type: 'user', name: 'Me' },
        { id: 'zeta', type: 'agent', name: 'Zeta', systemPrompt: 'z' },
        { id: 'alpha', type: 'agent', name: 'Alpha', systemPrompt: 'a' },
      ],
    });
    const { config } = loadConfig({ workspaceConfigFile: paths.configFile, globalConfigFile: join(root, 'no-global.json') });
    expect(config.entryAgent).toBeUndefined();
    expect(Collective.load(paths).entryAgent(config.entryAgent).id).toBe('alpha');
  });

  it('checks every given participant before writing anything', () => {
    const participants = [
      { id: 'me', type: 'user', name: 'Me' },
      { id: 'broken', type: 'agent', name: 'No prompt' },
    ] as ParticipantInput[];
    expect(() => initWorkspace(root, { participants })).toThrow(
      expect.objectContaining({
        code: 'participant_invalid',
        message: expect.stringContaining('field "systemPrompt" is missing') as unknown,
      }),
    );
    expect(existsSync(paths.configFile)).toBe(false);
    expect(existsSync(paths.participantFile('me'))).toBe(false);
  });
});
