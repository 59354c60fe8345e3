import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// The guide's library example (docs/guide/getting-started.md, "Library use") must compile against the
// built public API and run as written.
const GUIDE = fileURLToPath(new URL('../../../docs/guide/getting-started.md', import.meta.url));
// Inside the CLI package, so that `@legion-collective/core` and zod resolve as they would for a user.
const SCRATCH = fileURLToPath(new URL('../.readme-example/', import.meta.url));

function exampleCode(): string {
  const guide = readFileSync(GUIDE, 'utf8');
  const section = guide.slice(guide.indexOf('## Library use'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('docs/guide/getting-started.md has no ```ts block under "## Library use"');
  return match[1]!;
}

describe('the library example of the getting-started guide', () => {
  afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

  it("type-checks under the project's strict settings and prints what its comments say", () => {
    const code = exampleCode();
    mkdirSync(SCRATCH, { recursive: true });
    const file = `${SCRATCH}example.ts`;
    writeFileSync(file, code);
    const program = ts.createProgram([file], {
      strict: true,
      noUncheckedIndexedAccess: true,
      noUnusedLocals: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2023,
      types: ['node'],
      skipLibCheck: true,
      noEmit: true,
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(diagnostics).toEqual([]);

    const javascript = ts.transpileModule(code, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023 },
    }).outputText;
    writeFileSync(`${SCRATCH}example.mjs`, javascript);
    const output = execFileSync(process.execPath, [`${SCRATCH}example.mjs`], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(output.trim().split('\n')).toEqual(['2 + 3 = 5', 'true', "{ status: 'success', content: '42' }"]);
    // A whole type-check of core's declarations: seconds alone, a minute or more on 2 cores beside the rest of the suite.
  }, 180_000);
});
