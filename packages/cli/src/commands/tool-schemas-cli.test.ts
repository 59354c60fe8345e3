import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runLegion, type LegionRun } from '../legion-process.test-support.js';

const require = createRequire(import.meta.url);

/** The bin of an MCP server package from npm, run with this Node (no npx, no network). */
function serverBin(packageName: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0]!;
  return join(dirname(manifestPath), bin);
}

let dir: string;
function legion(args: string[]): Promise<LegionRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg') };
  for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL']) delete env[name];
  return runLegion(args, { cwd: dir, env });
}
const edit = (file: string, change: (json: Record<string, unknown>) => Record<string, unknown>): void =>
  writeFileSync(join(dir, file), JSON.stringify(change(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>)));

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'legion-tool-schemas-'));
  expect((await legion(['init'])).status).toBe(0);
  edit('.legion/collective/participants/developer.json', (developer) => ({ ...developer, context: { toolSchemas: 'compact' } }));
  edit('.legion/config.json', (config) => ({
    ...config,
    mcpServers: {
      memory: {
        command: process.execPath,
        args: [serverBin('@modelcontextprotocol/server-memory')],
        env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
        lazy: true,
      },
    },
  }));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('tool schema tokens in the CLI', () => {
  it("legion tools list shows each schema's tokens, what the first request carries, and what compact and lazy save", async () => {
    const text = await legion(['tools', 'list', '--agent', 'developer']);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^ {2}TOOL\s+SOURCE\s+APPROVAL\s+SCHEMA$/m);
    expect(text.stdout).toMatch(/^ {2}file_read\s+builtin\s+auto \(default for read\)\s+\d+ tokens on demand$/m);
    expect(text.stdout).toMatch(/^ {2}communicate\s+builtin\s+.*\d+ tokens compact$/m);
    expect(text.stdout).toMatch(
      /^ {2}tool definitions: \d{3} tokens in its first request \(toolSchemas "compact"\), [\d,]{5,} with every schema whole: loading on demand saves [\d,]+$/m,
    );
    expect(text.stdout).toMatch(
      /^ {4}on demand: MCP server memory \(lazy\): 9 tools, [\d,]+ tokens of schemas; each request saves [\d,]+ until loaded \(load_tools\)$/m,
    );
    // What a model with compact schemas is shown, and why.
    expect(text.stdout).toMatch(
      /^ {2}why: context\.toolSchemas is set in the config: the model is shown each tool it may use as a line of load_tools' catalogue, loads a family's schemas when it needs them, and a tool it calls before loading still runs\. Set context\.toolSchemas to "full" to send every schema whole\.$/m,
    );

    const json = await legion(['tools', 'list', '--agent', 'developer', '--json']);
    const [view] = (
      JSON.parse(json.stdout) as {
        agents: Array<{
          schemaTokens: {
            toolSchemas: string;
            fullTokens: number;
            offeredTokens: number;
            onDemand: Array<{ family: string; savedTokens: number; schemaTokens: number }>;
          };
        }>;
      }
    ).agents;
    expect(view!.schemaTokens.toolSchemas).toBe('compact');
    expect(view!.schemaTokens.offeredTokens).toBeLessThanOrEqual(1_000);
    expect(view!.schemaTokens.fullTokens).toBeGreaterThan(5_000);
    const memory = view!.schemaTokens.onDemand.find((family) => family.family === 'mcp__memory')!;
    expect(memory.savedTokens).toBeGreaterThan(0);
    expect(memory.savedTokens).toBeLessThan(memory.schemaTokens);

    // A full agent pays for every built-in schema, but the lazy server still waits.
    const coordinator = await legion(['tools', 'list', '--agent', 'coordinator']);
    expect(coordinator.stdout).toMatch(/^ {2}file_read\s+builtin\s+auto \(default for read\)\s+\d+ tokens$/m);
    expect(coordinator.stdout).toMatch(
      /^ {2}tool definitions: [\d,]+ tokens in its first request \(toolSchemas "full"\).*\n {4}on demand: MCP server memory \(lazy\)/m,
    );
    expect(coordinator.stdout).toMatch(
      /^ {2}why: its window is [\d,]+ tokens, so the cloud profile applies: every schema is sent whole\./m,
    );

    // A small window alone chooses compact schemas, and says so.
    edit('.legion/collective/participants/reviewer.json', (reviewer) => ({ ...reviewer, context: { window: 4096 } }));
    const reviewer = await legion(['tools', 'list', '--agent', 'reviewer']);
    expect(reviewer.stdout).toMatch(/toolSchemas "compact"/);
    expect(reviewer.stdout).toMatch(/^ {2}why: its window is 4,096 tokens, so the small profile applies: the model is shown each tool/m);
  });

  it("legion doctor shows what each MCP server's schemas cost and what lazy saves", async () => {
    const run = await legion(['doctor', '--json']);
    const report = JSON.parse(run.stdout) as { checks: Array<{ name: string; status: string; detail?: string }> };
    expect(report.checks.find((check) => check.name === 'MCP server memory')).toMatchObject({
      status: 'passed',
      detail: expect.stringMatching(/; schemas [\d,]+ tokens per request, [\d,]+ listed lazily \(saves [\d,]+; now lazy\)$/),
    });
  });
});
