import { defineConfig } from 'vitest/config';

// The real-VS-Code end-to-end test (npm run test:vscode): one code-server at a time, long timeouts.
export default defineConfig({
  test: {
    include: ['test/vscode-e2e/**/*.e2e.test.ts', 'test/vscode-e2e/**/*.unit.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    reporters: ['verbose'],
  },
});
