import { createTestLegion, type TestLegion } from '../../../testing/test-collective.js';
import { startLlmServer, type LlmServer } from './llm-server.js';

/**
 * For a describe block of tests whose agents talk to a local model server
 * through the real SDKs: the server starts once for the block, and after each
 * test every TestLegion the test made is cleaned up and the server forgets its
 * fixtures and requests. Call it in the describe's body, before the tests.
 */
export function useLlmServer(): {
  /** The block's server; its fields are read from the running server, so use them inside tests and hooks. */
  server: LlmServer;
  /** `createTestLegion` of the testing helpers, cleaned up after the test that made it. */
  createTestLegion: typeof createTestLegion;
} {
  let running: LlmServer | undefined;
  const made: TestLegion[] = [];
  const current = (): LlmServer => {
    if (!running) throw new Error('useLlmServer: the server runs from beforeAll to afterAll; read it inside a test or a hook');
    return running;
  };
  beforeAll(async () => {
    running = await startLlmServer();
  });
  afterAll(async () => {
    await running?.close();
    running = undefined;
  });
  afterEach(async () => {
    for (const test of made.splice(0)) await test.cleanup();
    running?.reset();
  });
  const server: LlmServer = {
    get mock() {
      return current().mock;
    },
    get recorder() {
      return current().recorder;
    },
    get anthropicURL() {
      return current().anthropicURL;
    },
    get openaiURL() {
      return current().openaiURL;
    },
    anthropicBodies: () => current().anthropicBodies(),
    openaiBodies: () => current().openaiBodies(),
    reset: () => current().reset(),
    close: () => current().close(),
  };
  return {
    server,
    createTestLegion: (options) => {
      const test = createTestLegion(options);
      made.push(test);
      return test;
    },
  };
}
