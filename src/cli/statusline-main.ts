/** dist/statusline.js: `trimline statusline` alone (see launch.ts), with the CLI's exit rules. */
import { terminalSafe } from '../protocol/safe-text';
import { wantsHelp } from './args';
import { COMMAND_HELP } from './commands';
import { UsageError } from './common';
import { runStatusline } from './statusline';

const args = process.argv.slice(3);
const help = async (): Promise<number> => {
  process.stdout.write(`${COMMAND_HELP.statusline}\n`);
  return 0;
};
const run = wantsHelp(args) ? help() : runStatusline(args);
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
