import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LLMock } from '@copilotkit/aimock';
import { runLegion } from './legion-process.test-support.js';

/** A message of one model request as aimock journals it (normalised to Chat Completions form). */
export interface JournalMessage {
  role: string;
  content: unknown;
  tool_call_id?: string;
}

export interface TestWorkspace {
  /** aimock on 127.0.0.1, running for the describe block; its fixtures, match counts and journal are cleared after each test. */
  readonly mock: LLMock;
  /** This test's workspace: a fresh temp directory that `legion init` has set up, removed after the test. */
  readonly dir: string;
  /**
   * What a `legion` process needs on top of `process.env`: no colour, a global
   * config home inside the workspace, and both providers' keys with their base
   * URLs at the mock (a key goes only to its provider's endpoint: here, the mock).
   */
  env(): Record<string, string>;
  /** Gives a participant of the workspace this model (its file rewritten with `model`). */
  useModel(participant: string, model: Record<string, unknown>): void;
  /** What the model was told about tool call `toolUseId`, from the last request that carried its result. */
  toolResultSent(toolUseId: string): string | undefined;
}

/**
 * For a describe block of tests that run the built binary against models served
 * by aimock: the mock starts once for the block, and each test gets a new
 * initialised workspace. Call it in the describe's body, before the tests.
 * `extraEnv` is added to `env()` (and to the environment of `legion init`).
 */
export function useWorkspace(prefix: string, extraEnv: (dir: string) => Record<string, string> = () => ({})): TestWorkspace {
  const mock = new LLMock({ port: 0, host: '127.0.0.1' });
  let current: string | undefined;
  const dir = (): string => {
    if (current === undefined)
      throw new Error('useWorkspace: the workspace exists from beforeEach to afterEach; read it inside a test or a hook');
    return current;
  };
  const env = (): Record<string, string> => ({
    NO_COLOR: '1',
    XDG_CONFIG_HOME: join(dir(), '.xdg'),
    ANTHROPIC_API_KEY: 'test',
    OPENAI_API_KEY: 'test',
    ANTHROPIC_BASE_URL: mock.url,
    OPENAI_BASE_URL: `${mock.url}/v1`,
    ...extraEnv(dir()),
  });
  beforeAll(async () => {
    await mock.start();
  });
  afterAll(() => mock.stop());
  beforeEach(async () => {
    current = mkdtempSync(join(tmpdir(), prefix));
    const init = await runLegion(['init'], { cwd: current, env: { ...process.env, ...env() } });
    expect(init.status, `legion init: exit ${init.status}\nstdout: ${init.stdout}\nstderr: ${init.stderr}`).toBe(0);
  });
  afterEach(() => {
    if (current !== undefined) rmSync(current, { recursive: true, force: true });
    current = undefined;
    mock.clearFixtures();
    mock.resetMatchCounts();
    mock.clearRequests();
  });
  return {
    mock,
    get dir() {
      return dir();
    },
    env,
    useModel: (participant, model) => {
      const file = join(dir(), '.legion/collective/participants', `${participant}.json`);
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), model }, null, 2));
    },
    toolResultSent: (toolUseId) => {
      for (const entry of [...mock.getRequests()].reverse()) {
        const body = entry.body as { messages?: JournalMessage[] } | null;
        const result = body?.messages?.find((message) => message.role === 'tool' && message.tool_call_id === toolUseId);
        if (result) return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
      }
      return undefined;
    },
  };
}
