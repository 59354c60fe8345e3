import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Legion } from '../../Legion.js';
import { initWorkspace } from './init-workspace.js';
import { storageSelection, workspaceStorage } from './storage-selection.js';

describe('storage selection', () => {
  let root: string;
  let globalConfigFile: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-storage-'));
    initWorkspace(root, {});
    mkdirSync(join(root, 'global'));
    globalConfigFile = join(root, 'global', 'config.json');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const workspaceConfig = (storage: unknown): void =>
    writeFileSync(join(root, '.legion', 'config.json'), JSON.stringify({ version: 1, storage }));

  it('is the files by default, PostgreSQL from the global config, and LEGION_DATABASE_URL before either', () => {
    expect(storageSelection({ root, globalConfigFile, env: {} })).toEqual({ kind: 'files' });
    writeFileSync(globalConfigFile, JSON.stringify({ storage: { kind: 'postgres', url: 'postgres://legion:secret@db.internal/legion' } }));
    expect(storageSelection({ root, globalConfigFile, env: {} })).toEqual({
      kind: 'postgres',
      url: 'postgres://legion:secret@db.internal/legion',
      source: 'config',
      fromWorkspaceFile: false,
    });
    expect(storageSelection({ root, globalConfigFile, env: { LEGION_DATABASE_URL: 'postgres://other/db' } })).toEqual({
      kind: 'postgres',
      url: 'postgres://other/db',
      source: 'LEGION_DATABASE_URL',
      fromWorkspaceFile: false,
    });
  });

  it('refuses a database password in the workspace config, naming the field and the fix', () => {
    workspaceConfig({ kind: 'postgres', url: 'postgres://legion:hunter2@db.internal/legion' });
    expect(() => storageSelection({ root, globalConfigFile, env: {} })).toThrow(
      /storage\.url.*password is not allowed in the workspace config.*Fix: remove the password.*PGPASSWORD/,
    );
    workspaceConfig({ kind: 'postgres', url: 'postgres://db.internal/legion?password=hunter2' });
    expect(() => storageSelection({ root, globalConfigFile, env: {} })).toThrow(/password is not allowed/);
    workspaceConfig({ kind: 'postgres', url: 'host=db.internal dbname=legion password=hunter2' });
    expect(() => storageSelection({ root, globalConfigFile, env: {} })).toThrow(/password is not allowed/);
    workspaceConfig({ kind: 'postgres', url: 'postgres://legion@db.internal/legion' });
    expect(storageSelection({ root, globalConfigFile, env: {} })).toEqual({
      kind: 'postgres',
      url: 'postgres://legion@db.internal/legion',
      source: 'config',
      fromWorkspaceFile: true,
    });
  });

  it("says when the URL is the workspace file's (a cloned repository's, which must not get PGPASSWORD), and not when the user's global config or LEGION_DATABASE_URL names it", () => {
    workspaceConfig({ kind: 'postgres', url: 'postgres://legion@attacker.example/legion' });
    expect(storageSelection({ root, globalConfigFile, env: {} })).toMatchObject({
      url: 'postgres://legion@attacker.example/legion',
      fromWorkspaceFile: true,
    });
    expect(storageSelection({ root, globalConfigFile, env: { LEGION_DATABASE_URL: 'postgres://mine/db' } })).toMatchObject({
      url: 'postgres://mine/db',
      fromWorkspaceFile: false,
    });
    writeFileSync(globalConfigFile, JSON.stringify({ storage: { url: 'postgres://legion@db.internal/legion' } }));
    workspaceConfig({ kind: 'postgres' });
    expect(storageSelection({ root, globalConfigFile, env: {} })).toMatchObject({
      url: 'postgres://legion@db.internal/legion',
      fromWorkspaceFile: false,
    });
  });

  it('asks for a URL when the kind is postgres without one', () => {
    workspaceConfig({ kind: 'postgres' });
    expect(() => storageSelection({ root, globalConfigFile, env: {} })).toThrow(
      /"storage.kind" is "postgres" but no database is named.*LEGION_DATABASE_URL/,
    );
  });

  it('is refused by Legion.open without a backend, rather than written to files nobody else reads', () => {
    expect(() => Legion.open({ root, globalConfigFile, env: { LEGION_DATABASE_URL: 'postgres://db/legion' } })).toThrow(
      expect.objectContaining({ code: 'storage_backend_required', message: expect.stringContaining('@legion-collective/store-postgres') }),
    );
  });

  it('hands Legion.open the config it read, which Legion.open then uses without reading the files again', async () => {
    workspaceConfig({ kind: 'files', fsync: 'never' });
    const { selection, config } = workspaceStorage({ root, globalConfigFile, env: {} });
    expect(selection).toEqual({ kind: 'files' });
    expect(config.storage.fsync).toBe('never');
    // The file changes after it was read: the Legion opened with the config read before keeps that one.
    writeFileSync(join(root, '.legion', 'config.json'), '{ not json');
    const legion = Legion.open({ root, globalConfigFile, env: {}, config });
    expect(legion.config).toBe(config);
    await legion.close();
    expect(() => Legion.open({ root, globalConfigFile, env: {} })).toThrow(/config/);
  });
});
