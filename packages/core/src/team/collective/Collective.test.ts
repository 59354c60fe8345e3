import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, LegionError, ParticipantNotFoundError } from '../../kernel/errors.js';
import { WorkspacePaths } from '../../store/fs/workspace-paths.js';
import { Collective } from './Collective.js';
import { initWorkspace } from '../config/init-workspace.js';
import type { ParticipantInput } from './participant.js';

let root: string;
let paths: WorkspacePaths;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'legion-collective-'));
  paths = new WorkspacePaths(root);
  mkdirSync(paths.participantsDir, { recursive: true });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function writeParticipant(id: string, value: unknown): string {
  const text = typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`;
  writeFileSync(paths.participantFile(id), text);
  return text;
}

const user = { id: 'user', type: 'user', name: 'You' };
const coordinator = { id: 'coordinator', type: 'agent', name: 'Coordinator', systemPrompt: 'You coordinate.' };
const developer = { id: 'developer', type: 'agent', name: 'Developer', systemPrompt: 'You code.', tools: ['file_*'], delegation: ['user'] };
const echo = { id: 'echo', type: 'mock', name: 'Echo', responses: [{ trigger: '*', response: 'echo' }] };

/** Loads a roster with one hand-edited file and returns the error it must raise; the file stays byte for byte. */
function loadError(id: string, content: unknown): ConfigError {
  writeParticipant('user', user);
  const text = writeParticipant(id, content);
  try {
    Collective.load(paths);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect(readFileSync(paths.participantFile(id), 'utf8')).toBe(text);
    return error as ConfigError;
  }
  throw new Error('expected Collective.load to fail');
}

describe('Collective.load', () => {
  it('loads every participant file of the workspace, with defaults filled in', () => {
    writeParticipant('user', user);
    writeParticipant('coordinator', coordinator);
    writeParticipant('developer', developer);
    writeParticipant('echo', echo);
    writeFileSync(join(paths.participantsDir, 'README.md'), 'not a participant');
    const collective = Collective.load(paths);
    expect(collective.ids()).toEqual(['coordinator', 'developer', 'echo', 'user']);
    expect(collective.get('coordinator')).toEqual({
      ...coordinator,
      version: 1,
      description: '',
      status: 'active',
      tools: 'all',
      delegation: 'all',
    });
    expect(collective.get('user')).toMatchObject({ type: 'user', medium: 'repl' });
    expect(collective.agents().map((agent) => agent.id)).toEqual(['coordinator', 'developer']);
    expect(collective.defaultUser()?.id).toBe('user');
    expect(collective.require('echo')).toMatchObject({ type: 'mock', responses: [{ trigger: '*', response: 'echo' }] });
  });

  it('is empty for a workspace without a participants folder', () => {
    rmSync(paths.participantsDir, { recursive: true });
    expect(Collective.load(paths).list()).toEqual([]);
  });

  describe('a hand-edited participant file that is wrong', () => {
    it('with a wrong field type: names the file, the field, what is expected and what was found', () => {
      const error = loadError('developer', { ...developer, name: 42 });
      expect(error.file).toBe('.legion/collective/participants/developer.json');
      expect(error.field).toBe('name');
      expect(error.message).toBe(
        '.legion/collective/participants/developer.json (field "name"): expected a string, got the number 42. ' +
          'Fix: set "name" to a string in this participant file',
      );
    });

    it('with an unknown type: lists the types there are', () => {
      const error = loadError('bot', { id: 'bot', type: 'robot', name: 'Bot' });
      expect(error.file).toBe('.legion/collective/participants/bot.json');
      expect(error.field).toBe('type');
      expect(error.message).toContain('expected one of "agent", "user", "mock", "a2a", got the string "robot"');
      expect(error.fix).toBe('set "type" to one of "agent", "user", "mock", "a2a" in this participant file');
    });

    it('an a2a participant whose card URL is not http or https', () => {
      const error = loadError('remote', { id: 'remote', type: 'a2a', name: 'Remote', url: 'file:///etc/passwd' });
      expect(error.field).toBe('url');
    });

    it('without a type', () => {
      const error = loadError('bot', { id: 'bot', name: 'Bot' });
      expect(error.message).toContain(
        '.legion/collective/participants/bot.json (field "type"): is missing; expected one of "agent", "user", "mock"',
      );
    });

    it('with broken JSON: says where', () => {
      const error = loadError('developer', '{\n  "id": "developer",\n  "type": "agent"\n  "name": "Dev"\n}\n');
      expect(error.file).toBe('.legion/collective/participants/developer.json');
      expect(error.message).toMatch(/^\.legion\/collective\/participants\/developer\.json: is not valid JSON \(.*line 4/);
      expect(error.fix).toBe('correct the JSON syntax of this participant file');
    });

    it('with an unknown extra field: names it and says to remove it', () => {
      const error = loadError('developer', { ...developer, favouriteColour: 'blue' });
      expect(error.field).toBe('favouriteColour');
      expect(error.message).toContain('.legion/collective/participants/developer.json (field "favouriteColour"): is not a known field');
      expect(error.fix).toBe('remove "favouriteColour" or correct its spelling in this participant file');
    });

    it('with a field that belongs to another type', () => {
      const error = loadError('user', { ...user, systemPrompt: 'users have no prompt' });
      expect(error.field).toBe('systemPrompt');
      expect(error.message).toContain('is not a known field');
    });

    it('with an id that does not match the file name', () => {
      const error = loadError('developer', { ...developer, id: 'dev' });
      expect(error.file).toBe('.legion/collective/participants/developer.json');
      expect(error.field).toBe('id');
      expect(error.message).toContain('id "dev" does not match the file name');
      expect(error.fix).toBe('set "id" to "developer" or rename the file to dev.json');
    });

    it('with a nested mistake: names the path into the field', () => {
      const error = loadError('echo', { ...echo, responses: [{ trigger: '*', response: 'ok' }, { response: 'no trigger' }] });
      expect(error.field).toBe('responses[1].trigger');
      expect(error.message).toContain('(field "responses[1].trigger"): is missing; expected a string');
    });

    it('with a permission that is neither "all", "none" nor a list', () => {
      const error = loadError('developer', { ...developer, delegation: 'everyone' });
      expect(error.field).toBe('delegation');
      expect(error.message).toContain('expected "all", "none" or an array, got the string "everyone"');
    });

    it('with an invalid id', () => {
      const error = loadError('a__b', { ...user, id: 'a__b' });
      expect(error.field).toBe('id');
      expect(error.message).toContain('expected an id of letters');
    });
  });
});

describe('Collective', () => {
  it('saves a participant to its file, so that a reload finds it', () => {
    writeParticipant('user', user);
    const collective = Collective.load(paths);
    const saved = collective.save(developer as ParticipantInput);
    expect(saved).toMatchObject({ id: 'developer', status: 'active', version: 1 });
    expect(JSON.parse(readFileSync(paths.participantFile('developer'), 'utf8'))).toEqual(saved);
    expect(Collective.load(paths).get('developer')).toEqual(saved);
    // and replaces it in place
    collective.save({ ...(developer as ParticipantInput), name: 'Developer 2' });
    expect(Collective.load(paths).get('developer')?.name).toBe('Developer 2');
  });

  it('refuses to save an invalid participant, naming the field, and writes nothing', () => {
    const collective = Collective.load(paths);
    const attempt = (): unknown => collective.save({ ...developer, tools: 'some' } as unknown as ParticipantInput);
    expect(attempt).toThrow(LegionError);
    expect(attempt).toThrow(/Participant "developer": field "tools" expected "all", "none" or an array, got the string "some"/);
    expect(attempt).toThrow(expect.objectContaining({ code: 'participant_invalid' }));
    expect(Collective.load(paths).get('developer')).toBeUndefined();
  });

  it('retires a participant: kept on disk and by get, gone from the roster', () => {
    writeParticipant('user', user);
    writeParticipant('developer', developer);
    const collective = Collective.load(paths);
    const retired = collective.retire('developer');
    expect(retired.status).toBe('retired');
    expect(JSON.parse(readFileSync(paths.participantFile('developer'), 'utf8')).status).toBe('retired');
    for (const view of [collective, Collective.load(paths)]) {
      expect(view.ids()).toEqual(['user']);
      expect(view.get('developer')?.status).toBe('retired');
      expect(() => view.require('developer')).toThrow(ParticipantNotFoundError);
      expect(() => view.require('developer')).toThrow('Known participants: user.');
    }
    expect(() => collective.retire('developer')).toThrow(ParticipantNotFoundError);
  });

  it('lists participants in id order, whatever order they were added in', () => {
    const collective = new Collective([user, developer, coordinator] as ParticipantInput[]);
    collective.save({ ...coordinator, id: 'architect' } as ParticipantInput);
    expect(collective.ids()).toEqual(['architect', 'coordinator', 'developer', 'user']);
  });

  it('refuses two participants with one id', () => {
    expect(() => new Collective([user, { ...coordinator, id: 'user' }] as ParticipantInput[])).toThrow(
      expect.objectContaining({ code: 'duplicate_participant' }),
    );
  });

  it('refuses an invalid participant given in code with a LegionError', () => {
    expect(() => new Collective([{ ...user, type: 'robot' }] as unknown as ParticipantInput[])).toThrow(
      expect.objectContaining({
        code: 'participant_invalid',
        message: expect.stringContaining('expected one of "agent", "user", "mock"') as unknown,
      }),
    );
  });

  describe('entryAgent', () => {
    const roster = (): Collective => new Collective([user, developer, coordinator, echo] as ParticipantInput[]);

    it('is the configured participant', () => {
      expect(roster().entryAgent('developer').id).toBe('developer');
      expect(roster().entryAgent('echo').id).toBe('echo');
    });

    it('falls back to the first agent by id when the configured one is missing, retired or not given', () => {
      expect(roster().entryAgent('nobody').id).toBe('coordinator');
      expect(roster().entryAgent().id).toBe('coordinator');
      const collective = roster();
      collective.retire('developer');
      expect(collective.entryAgent('developer').id).toBe('coordinator');
    });

    it('never picks the user, who would be messaging itself', () => {
      expect(roster().entryAgent('user').id).toBe('coordinator');
    });

    it('falls back to a mock when there are no agents, and fails clearly when there is nobody', () => {
      expect(new Collective([user, echo] as ParticipantInput[]).entryAgent().id).toBe('echo');
      expect(() => new Collective([user] as ParticipantInput[]).entryAgent()).toThrow(expect.objectContaining({ code: 'no_agents' }));
    });
  });

  describe('loadTemplate', () => {
    it('loads a template of the workspace', () => {
      initWorkspace(root);
      const template = Collective.load(paths).loadTemplate('researcher');
      expect(template).toMatchObject({ type: 'agent', name: 'Researcher', tools: 'all', delegation: ['user'] });
    });

    it('names a template that does not exist', () => {
      expect(() => Collective.load(paths).loadTemplate('nope')).toThrow(expect.objectContaining({ code: 'template_not_found' }));
      expect(() => Collective.load(paths).loadTemplate('nope')).toThrow('No template "nope" in .legion/templates.');
    });

    it('refuses a name that would leave the templates folder', () => {
      writeParticipant('coordinator', coordinator);
      expect(() => Collective.load(paths).loadTemplate('../collective/participants/coordinator')).toThrow(
        expect.objectContaining({ code: 'invalid_template_name' }),
      );
    });

    it('reports a broken template with its relative path', () => {
      mkdirSync(paths.templatesDir, { recursive: true });
      writeFileSync(join(paths.templatesDir, 'tester.json'), JSON.stringify({ type: 'agent', systemPrompt: 7 }));
      const error = (() => {
        try {
          Collective.load(paths).loadTemplate('tester');
        } catch (caught) {
          return caught as ConfigError;
        }
        throw new Error('expected loadTemplate to fail');
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toContain('.legion/templates/tester.json (field "systemPrompt"): expected a string, got the number 7');
    });

    it('needs a workspace', () => {
      expect(() => new Collective().loadTemplate('researcher')).toThrow(expect.objectContaining({ code: 'no_workspace' }));
    });
  });
});
