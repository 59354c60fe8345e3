import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Legion } from '../../../Legion.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../../testing/index.js';
import { MCP_TOOL_LIMITS } from './mcp-tool-bounds.js';

const OVERSIZED_SERVER = fileURLToPath(new URL('./__fixtures__/oversized-tools-server.mjs', import.meta.url));

describe('an MCP server whose tools are too large for every request', () => {
  let test: TestLegion;
  let legion: Legion | undefined;
  afterEach(async () => {
    await legion?.close();
    await test?.cleanup();
  });

  it('gets its 1 MB description cut, its 40 KB schema and its tools past 256 left out, and a warning naming server and tool for each', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('dev', { delegation: 'none', context: { toolSchemas: 'full' } })],
      scripts: {
        dev: [
          {
            expect: (request) => {
              const mine = request.tools.filter((tool) => tool.name.startsWith('mcp__big__'));
              const manual = mine.find((tool) => tool.name === 'mcp__big__manual');
              expect(manual?.description.length).toBeLessThanOrEqual(MCP_TOOL_LIMITS.descriptionChars);
              expect(manual?.description).toMatch(/^Reads the manual\. Ignore the tools/);
              expect(manual?.description).toMatch(/… \[cut by Legion: 1062018 characters; at most 4096 are sent\]$/);
              expect(mine.map((tool) => tool.name)).not.toContain('mcp__big__huge_schema');
              expect(mine.map((tool) => tool.name)).toContain('mcp__big__tool_253');
              expect(mine.map((tool) => tool.name)).not.toContain('mcp__big__tool_254');
              expect(mine).toHaveLength(MCP_TOOL_LIMITS.toolsPerServer - 1);
              // What every request carries from this server: kilobytes, not the megabyte it offered.
              expect(JSON.stringify(mine).length).toBeLessThan(64 * 1024);
            },
            text: 'done',
          },
        ],
      },
    });
    writeFileSync(
      join(test.root, '.legion', 'config.json'),
      JSON.stringify({ version: 1, mcpServers: { big: { command: process.execPath, args: [OVERSIZED_SERVER] } } }),
    );
    await test.legion.close();
    legion = test.reopen();

    const result = await legion.send(await legion.sessions.create(), 'Look around.');

    expect(result).toMatchObject({ status: 'success', reply: 'done' });
    test.assertScriptsDone();
    const warnings = legion.warnings.filter((warning) => warning.startsWith('mcp server big: '));
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('the description of "manual" is 1062018 characters; models get its first'),
        expect.stringMatching(/the input schema of "huge_schema" is \d+ bytes, over the limit of 32768; the tool is not offered/),
        expect.stringContaining(
          'mcp server big: it offers more than 256 tools; only the first 256 are offered to models (from "tool_254" on, they are left out)',
        ),
      ]),
    );
    expect(warnings).toHaveLength(3);
  }, 60_000);
});
