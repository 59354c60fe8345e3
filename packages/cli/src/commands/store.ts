import { LegionError } from '@legion-collective/core';
import { storageSelection } from '@legion-collective/core/management';
import { databaseError, resolveWorkspace } from '../workspace.js';
import { stdout } from '../render/terminal-text.js';

interface StoreMigrateOptions {
  workspace?: string;
  dryRun?: boolean;
  json?: boolean;
}

/**
 * `legion store migrate [--dry-run]`: brings the PostgreSQL schema up to this Legion's version
 * (every command does it on first use too); `--dry-run` prints the SQL it would run.
 */
export async function storeMigrateCommand(options: StoreMigrateOptions): Promise<number> {
  const root = resolveWorkspace(options.workspace);
  const selected = storageSelection({ root });
  if (selected.kind === 'files') {
    throw new LegionError(
      'not_a_database',
      'This workspace keeps its sessions in its files (.legion/sessions/), which have no schema to migrate. To use PostgreSQL, set LEGION_DATABASE_URL or "storage": { "kind": "postgres", "url": "postgres://…" } in the global config.',
    );
  }
  const { PostgresSessionBackend, displayUrl } = await import('@legion-collective/store-postgres');
  // Not `openPostgresBackend`: that one migrates on opening, and a dry run must change nothing.
  const backend = new PostgresSessionBackend({ url: selected.url, urlFromWorkspaceFile: selected.fromWorkspaceFile });
  try {
    const report = await backend.migrate({ dryRun: options.dryRun === true }).catch((error: unknown) => {
      throw databaseError(error, displayUrl(selected.url), selected.source);
    });
    if (options.json) {
      stdout.json({
        dryRun: options.dryRun === true,
        from: report.from,
        to: report.to,
        migrations: report.migrations.map(({ version, name }) => ({ version, name })),
      });
      return 0;
    }
    if (report.migrations.length === 0) {
      stdout.write(`The schema is at version ${report.from}, the newest this Legion knows: nothing to do.\n`);
      return 0;
    }
    if (options.dryRun) {
      stdout.write(`The schema is at version ${report.from}; these migrations would bring it to ${report.to} (nothing was changed):\n`);
      for (const migration of report.migrations) stdout.write(`\n-- ${migration.version}: ${migration.name}\n${migration.sql.trim()}\n`);
      return 0;
    }
    stdout.write(
      `Migrated the schema from version ${report.from} to ${report.to}: ${report.migrations.map((migration) => `${migration.version} (${migration.name})`).join(', ')}.\n`,
    );
    return 0;
  } finally {
    await backend.close();
  }
}
