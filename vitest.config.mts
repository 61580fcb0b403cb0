import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Four projects, each with the timeout its tests need (a hang shows up in seconds, not minutes):
 *   unit         pure logic and small in-process servers; 10 s per test
 *   property     fast-check properties; TRIMLINE_PROP_RUNS sets the case count (10,000 by default),
 *                so their timeout is generous: 10,000 engine cases took 90 s under load here
 *   integration  child processes, real MCP servers, the crash test, every real transcript
 *   browser      the webviews in Chromium
 * `npm run test:fast` runs unit + property at reduced case counts; `npm test` runs all four.
 * Projects that run the built bundles build dist/ first (test/setup/build-dist.ts).
 * At least two workers: most slow tests wait on child processes, sockets or timers, so a
 * second worker pays off even on a two-core machine (vitest's default there is one).
 */
const BUILD = 'test/setup/build-dist.ts';
/** Every project's temporary files in one directory of the run, removed at its end (test/setup/tmp-dir.ts). */
const TMP = 'test/setup/tmp-dir.ts';

export default defineConfig({
  test: {
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          globalSetup: [TMP],
          testTimeout: 10_000,
          hookTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: { name: 'property', include: ['test/property/**/*.test.ts'], globalSetup: [TMP], testTimeout: 300_000 },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: [TMP, BUILD],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: [TMP, BUILD, 'test/setup/m-claude-report.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
