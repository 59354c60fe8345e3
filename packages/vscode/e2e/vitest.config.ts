import { defineConfig } from 'vitest/config';

// The tests in a real VS Code: run by `npm run test:vscode`, not by the root `npm test`.
export default defineConfig({
  test: {
    globals: true,
    include: ['packages/vscode/e2e/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
