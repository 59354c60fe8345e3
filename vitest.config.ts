import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources; child-process tests use the built dist.
    alias: [
      { find: /^@legion-collective\/core\/testing$/, replacement: fileURLToPath(new URL('./packages/core/src/testing/index.ts', import.meta.url)) },
      { find: /^@legion-collective\/core$/, replacement: fileURLToPath(new URL('./packages/core/src/index.ts', import.meta.url)) },
    ],
  },
  test: {
    globals: true,
    include: ['packages/*/src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
