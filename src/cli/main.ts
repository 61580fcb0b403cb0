/**
 * `trimline`: run, inspect, replay, strategies, report, demo, proxy, route, statusline.
 * User errors end in one clear line and exit code 2; never a stack trace.
 */
import { ImportError } from '../core/import';
import { terminalSafe } from '../protocol/safe-text';
import { parseCommand, wantsHelp } from './args';
import { loadConfig, UsageError } from './common';
import { COMMAND_HELP, COMMANDS, INSPECT_COMMAND, REPLAY_COMMAND, STRATEGIES_COMMAND } from './commands';
import { parsePort, runInspect, serveInspect } from './inspect';
import { runReplay } from './replay';
import { runAgentCli } from './run';
import { runStrategies } from './strategies';
import { runDemo } from './demo';
import { relaunchReport } from './relaunch';
import { runReportCli } from './report';
import { runProxy } from './proxy';
import { runStatusline } from './statusline';
import { runRoute } from './route';

const HELP = `trimline: see and trim what a coding agent sends to the model

Usage:
${COMMANDS.flatMap((c) => c.usage.map((u) => `  ${u}`)).join('\n')}

\`trimline <command> --help\` explains a command and every option it takes.
Strategy S: none | default | a comma list (see \`trimline strategies\`).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP + '\n');
    return command ? 0 : 2;
  }
  const help = COMMAND_HELP[command];
  if (help === undefined) throw new UsageError(`unknown command "${command}" (try: trimline --help)`);
  if (wantsHelp(rest)) {
    process.stdout.write(help + '\n');
    return 0;
  }
  switch (command) {
    case 'run':
      return runAgentCli(rest);
    case 'demo':
      return runDemo(rest);
    case 'report':
      return relaunchReport(rest) ?? (await runReportCli(rest));
    case 'proxy':
      return runProxy(rest);
    case 'statusline':
      return runStatusline(rest);
    case 'route':
      return runRoute(rest);
    case 'inspect': {
      const { values, positionals } = parseCommand(INSPECT_COMMAND, rest);
      const config = loadConfig(values.config);
      const file = positionals[0];
      if (!file) {
        throw new UsageError('inspect: missing <file> (a transcript to inspect); see `trimline inspect --help`');
      }
      if (values.serve) {
        const port = parsePort(values.port);
        await serveInspect(file, { strategy: values.strategy, config, json: false, port }, process.stdout);
        return 0;
      }
      if (values.port !== undefined) throw new UsageError('inspect: --port needs --serve');
      process.stdout.write(runInspect(file, { strategy: values.strategy, config, json: !!values.json }) + '\n');
      return 0;
    }
    case 'replay': {
      const { values, positionals } = parseCommand(REPLAY_COMMAND, rest);
      const config = loadConfig(values.config);
      const file = positionals[0];
      if (!file) throw new UsageError('replay: missing <file> (a transcript to replay); see `trimline replay --help`');
      if (!values.jsonl) throw new UsageError('replay: output format is JSON lines; pass --jsonl');
      await runReplay(file, { strategy: values.strategy ?? 'default', config }, process.stdout);
      return 0;
    }
    case 'strategies':
      process.stdout.write(runStrategies(!!parseCommand(STRATEGIES_COMMAND, rest).values.json) + '\n');
      return 0;
    default:
      throw new UsageError(`unknown command "${command}" (try: trimline --help)`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    const err = e as Error & { code?: string };
    if (e instanceof UsageError || e instanceof ImportError) {
      process.stderr.write(`trimline: ${terminalSafe(err.message)}\n`);
      process.exitCode = 2;
    } else if (/unknown strategy|unknown option|must be/.test(err.message)) {
      process.stderr.write(`trimline: ${terminalSafe(err.message)}\n`);
      process.exitCode = 2;
    } else if (err.code === 'EPIPE') {
      process.exitCode = 0;
    } else {
      process.stderr.write(`trimline: internal error: ${terminalSafe(err.stack ?? err.message)}\n`);
      process.exitCode = 1;
    }
  },
);
