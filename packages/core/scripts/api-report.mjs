// Writes (`--update`) or checks (default; CI) the API report of each entry of @legion-collective/core:
// packages/core/api/<entry>.api.md, the names and signatures the entry exposes, as api-extractor
// reads them from the built .d.ts files (run `npm run build` first). A change to an entry's surface
// shows as a diff of its report in review; CI fails when a report is not the one committed.
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const core = join(dirname(fileURLToPath(import.meta.url)), '..');
// Entry (the package.json export) → its built declaration file, under dist/.
const ENTRIES = {
  core: 'index.d.ts',
  vocabulary: 'vocabulary.d.ts',
  backend: 'backend.d.ts',
  management: 'management.d.ts',
  internal: 'internal.d.ts',
  testing: 'testing/index.d.ts',
};
const update = process.argv.includes('--update');
mkdirSync(join(core, 'api'), { recursive: true });

let failed = 0;
for (const [name, declarations] of Object.entries(ENTRIES)) {
  const config = ExtractorConfig.prepare({
    configObjectFullPath: join(core, 'api-extractor.json'),
    packageJsonFullPath: join(core, 'package.json'),
    configObject: {
      projectFolder: core,
      mainEntryPointFilePath: join(core, 'dist', declarations),
      compiler: { tsconfigFilePath: join(core, 'tsconfig.build.json') },
      apiReport: {
        enabled: true,
        reportFileName: name,
        reportFolder: join(core, 'api'),
        reportTempFolder: join(core, 'dist', 'api-report'),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        // Notes are left out of the reports: those about a declaration carry its .d.ts file and line, so
        // they would change with every edit or move nearby while the surface stays the same.
        extractorMessageReporting: {
          default: { logLevel: 'none', addToApiReportFile: false },
          'ae-missing-release-tag': { logLevel: 'none', addToApiReportFile: false },
          // A note per undocumented member names its .d.ts file and line: reports would change with every move.
          'ae-undocumented': { logLevel: 'none', addToApiReportFile: false },
        },
        tsdocMessageReporting: { default: { logLevel: 'none', addToApiReportFile: false } },
      },
    },
  });
  const result = Extractor.invoke(config, {
    localBuild: update,
    showVerboseMessages: false,
    messageCallback: (message) => {
      if (message.logLevel === 'none') message.handled = true;
    },
  });
  if (!result.succeeded || (!update && result.apiReportChanged)) {
    failed += 1;
    console.error(
      `api report of "${name}" ${result.apiReportChanged ? 'changed' : 'failed'}: compare packages/core/api/${name}.api.md with packages/core/dist/api-report/${name}.api.md; if the change is meant, run npm run api:update and commit the report.`,
    );
  } else console.log(`api report of "${name}": ${update && result.apiReportChanged ? 'updated' : 'unchanged'}`);
}
process.exit(failed > 0 ? 1 : 0);
