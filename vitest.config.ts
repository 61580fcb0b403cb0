import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/property/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/browser/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
