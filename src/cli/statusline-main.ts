/** dist/statusline.js: `trimline statusline` alone (see launch.ts), with the CLI's exit rules. */
import { terminalSafe } from '../protocol/safe-text';
import { wantsHelp } from './args';
import { COMMAND_HELP } from './commands';
import { UsageError } from './common';
import { runStatusline } from './statusline';

const args = process.argv.slice(3);
const run = wantsHelp(args) ? Promise.resolve(process.stdout.write(`${COMMAND_HELP.statusline}\n`)).then(() => 0) : runStatusline(args);
run.then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    const usage = e instanceof UsageError;
    process.stderr.write(`trimline: ${terminalSafe(usage ? e.message : `statusline: ${(e as Error).message}`)}\n`);
    process.exitCode = usage ? 2 : 1;
  },
);
