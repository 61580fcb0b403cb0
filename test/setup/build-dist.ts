/**
 * Global setup of the projects whose tests run the built bundles (dist/cli.js,
 * dist/webview/*.js): build them from the current source once per `vitest run`, so a
 * test never passes against a stale build. The first project to start builds; the
 * others see the flag in the (shared) main process and skip.
 */
import { execFileSync } from 'node:child_process';

const FLAG = 'TRIMLINE_TEST_DIST_BUILT';

export default function setup(): void {
  if (process.env[FLAG] === '1') return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  process.env[FLAG] = '1';
}
