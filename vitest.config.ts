import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The engine's own tests that are about sessions, not files: they run a second
 * time on the memory backend (`createTestLegion` reads LEGION_TEST_BACKEND), so
 * the engine is proven on a backend other than the files. Crash-safety and
 * file-format tests stay on the files only.
 */
const ON_EVERY_BACKEND = [
  'packages/core/src/Legion.test.ts',
  'packages/core/src/Legion.events.test.ts',
  'packages/core/src/engine/conversation/Session.test.ts',
  'packages/core/src/engine/runtime/AgentRuntime.test.ts',
  'packages/core/src/engine/runtime/model-request.test.ts',
  'packages/core/src/hitl/ask-user.test.ts',
  'packages/core/src/hitl/attach-user.test.ts',
  'packages/core/src/hitl/cross-process-answers.test.ts',
  'packages/core/src/engine/runtime/message-work-resume.test.ts',
  'packages/core/src/hitl/approvals.test.ts',
  'packages/core/src/tools/builtin/builtin-tools.test.ts',
  'packages/core/src/tools/builtin/collective/collective-tools.test.ts',
  'packages/core/src/model/context/context-relief.test.ts',
  'packages/core/src/engine/runtime/tool-offer.test.ts',
  'packages/server/src/busy-race.test.ts',
];

const POSTGRES_TESTS = ['packages/store-postgres/src/**/*.test.ts'];
const POSTGRES_SETUP = 'packages/store-postgres/src/test-support/global-setup.ts';
const ENGINE_SETUP = 'packages/store-postgres/src/test-support/engine-setup.ts';

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources; child-process tests use the built dist.
    alias: [
      {
        find: /^@legion-collective\/core\/testing$/,
        replacement: fileURLToPath(new URL('./packages/core/src/testing/index.ts', import.meta.url)),
      },
      { find: /^@legion-collective\/core$/, replacement: fileURLToPath(new URL('./packages/core/src/index.ts', import.meta.url)) },
      // The other entries with classes (errors, backends) from the same sources: one module instance each, so `instanceof` holds.
      ...['backend', 'management', 'internal'].map((entry) => ({
        find: new RegExp(`^@legion-collective/core/${entry}$`),
        replacement: fileURLToPath(new URL(`./packages/core/src/${entry}.ts`, import.meta.url)),
      })),
    ],
  },
  test: {
    globals: true,
    testTimeout: 30_000,
    // Vitest's default is one worker less than the cores: one on CI's two, where most of a test's time
    // is spent waiting on the processes it starts (the binary, Chromium, tmux, PostgreSQL). Three
    // workers took a Node 22 run from 658 s to 484 s there, every test passing.
    maxWorkers: 3,
    hookTimeout: 30_000,
    // expect.poll's default of 1 s is shorter than a child process or a browser takes to show a
    // change on a loaded 2-core CI machine; a poll still fails at once on a wrong final value only
    // after this, so it costs nothing when the test passes.
    expect: { poll: { timeout: 10_000 } },
    projects: [
      {
        extends: true,
        test: { name: 'files', include: ['packages/*/src/**/*.test.ts'], exclude: [...POSTGRES_TESTS, '**/node_modules/**'] },
      },
      // PostgreSQL's own tests, on one server the run starts (and skips them without): packages/store-postgres/README.md.
      { extends: true, test: { name: 'postgres', include: POSTGRES_TESTS, globalSetup: [POSTGRES_SETUP] } },
      // The engine's tests once more, their sessions in PostgreSQL (without a server: on the files, with a warning).
      {
        extends: true,
        test: {
          name: 'postgres-backend',
          include: ON_EVERY_BACKEND,
          env: { LEGION_TEST_BACKEND: 'postgres' },
          globalSetup: [POSTGRES_SETUP],
          setupFiles: [ENGINE_SETUP],
        },
      },
      { extends: true, test: { name: 'memory-backend', include: ON_EVERY_BACKEND, env: { LEGION_TEST_BACKEND: 'memory' } } },
    ],
  },
});
