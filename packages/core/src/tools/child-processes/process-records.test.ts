import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reapLeftoverGroups } from './process-records.js';

describe('process records', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-records-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves a record being written by a live process alone, and clears one whose writer died before renaming it', () => {
    // A pid that existed and is gone: a child that has exited and been waited for.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(dir, `.123-456.json.${process.pid}.tmp`), '{"version":1,"pg');
    writeFileSync(join(dir, `.789-1.json.${dead}.tmp`), '{"version":1,"pg');
    expect(reapLeftoverGroups(dir)).toEqual([]);
    expect(readdirSync(dir)).toEqual([`.123-456.json.${process.pid}.tmp`]);
  });
});
