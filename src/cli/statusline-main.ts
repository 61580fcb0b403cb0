/** dist/statusline.js: `trimline statusline` alone (see launch.ts), with the CLI's exit rules. */
import { terminalSafe } from '../protocol/safe-text';
import { UsageError } from './common';
import { runStatusline } from './statusline';

runStatusline(process.argv.slice(3)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    const usage = e instanceof UsageError;
    process.stderr.write(`trimline: ${terminalSafe(usage ? e.message : `statusline: ${(e as Error).message}`)}\n`);
    process.exitCode = usage ? 2 : 1;
  },
);
