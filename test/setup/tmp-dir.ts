/**
 * Global setup of every project: the tests' temporary files go into one
 * directory of this run (TMPDIR, which os.tmpdir() and the child processes the
 * tests start read; TRIMLINE_DATA_DIR too), removed when the run ends. So a test run leaves nothing
 * in the machine's /tmp, even where a test fails before its own cleanup. The
 * first project to start makes it; the others see it in the (shared) main process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FLAG = 'TRIMLINE_TEST_TMPDIR';

export default function setup(): (() => void) | undefined {
  if (process.env[FLAG]) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'trimline-test-run-'));
  process.env[FLAG] = dir;
  process.env.TMPDIR = dir;
  // Trimline's per-user data (proxy journals and state files) of every process a test starts: here too, not in $HOME.
  process.env.TRIMLINE_DATA_DIR = join(dir, 'trimline-data');
  return () => {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // a file still held open by a process that outlived the run: left for the OS
    }
  };
}
