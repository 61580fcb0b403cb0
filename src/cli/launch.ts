/**
 * dist/cli.js: `trimline statusline` runs from its own small bundle (Claude Code runs it after
 * every message, and it must answer in well under 100 ms: the whole CLI takes longer just to
 * load); every other command from the CLI bundle (main.ts). Both sit beside this file in dist/.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- bundles chosen at run time, beside this one */
if (process.argv[2] === 'statusline') require('./statusline.js');
else require('./cli-main.js');
