import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createTestLegion, userParticipant, type TestLegion } from '@legion-collective/core/testing';
import { EDITOR_BUILTIN_TOOLS } from './editor-tool-catalogue.js';
import { editorToolDeclarations } from './editor-tool-declarations.js';

const PACKAGE_JSON = fileURLToPath(new URL('../package.json', import.meta.url));

describe("package.json's languageModelTools (the tools offered to the editor's agents)", () => {
  let test: TestLegion | undefined;
  afterEach(() => test?.cleanup());

  it("are made from core's built-in tools: description and JSON Schema (rewrite with `npx vitest run packages/vscode/src/editor-tool-declarations.test.ts -u`)", async () => {
    test = createTestLegion({ participants: [userParticipant()] });
    const builtins = new Map(test.legion.tools.list().map((tool) => [tool.name, tool]));
    const manifest = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { contributes: Record<string, unknown> };
    const declarations = editorToolDeclarations(builtins);
    const expected = { ...manifest, contributes: { ...manifest.contributes, languageModelTools: declarations } };
    await expect(`${JSON.stringify(expected, null, 2)}\n`).toMatchFileSnapshot('../package.json');
    // Each built-in carries core's own schema, and is shown only while the user offers Legion's tools.
    for (const name of EDITOR_BUILTIN_TOOLS) {
      const declared = declarations.find((declaration) => declaration.name === `legion_${name}`);
      expect(declared?.inputSchema, name).toEqual(builtins.get(name)?.parameters);
      expect(declared?.when).toBe('config.legion.offerToolsToEditor');
    }
  });

  it('fail loudly when core no longer has an offered tool', () => {
    expect(() => editorToolDeclarations(new Map())).toThrow(
      /offers file_read, which core registers no longer.*update EDITOR_BUILTIN_TOOLS/,
    );
  });
});
