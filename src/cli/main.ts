/**
 * `trimline`: run, inspect, replay, strategies.
 * User errors end in one clear line and exit code 2; never a stack trace.
 */
import { parseArgs } from 'node:util';
import { ImportError } from '../core/import';
import { terminalSafe } from '../protocol/safe-text';
import { loadConfig, UsageError } from './common';
import { parsePort, runInspect, serveInspect } from './inspect';
import { runReplay } from './replay';
import { RUN_USAGE, runAgentCli } from './run';
import { runStrategies } from './strategies';
import { runDemo } from './demo';
import { relaunchReport } from './relaunch';
import { REPORT_USAGE, runReportCli } from './report';
import { PROXY_USAGE, runProxy } from './proxy';
import { COMMAND_HELP, wantsHelp } from './help';

const HELP = `trimline: see and trim what a coding agent sends to the model

Usage:
  ${RUN_USAGE}
  trimline inspect <file> [--strategy S] [--config F] [--json]
  trimline inspect <file> --serve [--port N] [--strategy S] [--config F]
  trimline replay <file> --strategy S [--config F] --jsonl
  trimline strategies [--json]
  ${REPORT_USAGE}
  trimline demo [--port N] [--strategy S]
  ${PROXY_USAGE}

<file>: a Claude Code session (.jsonl), a Cline api_conversation_history.json,
OpenAI-style chat messages (an array, a SWE-agent .traj or a mini-swe-agent trajectory), an
OpenHands event stream, or
Anthropic Messages JSON (an array of messages or {system, tools, messages}).
Strategy S: none | default | a comma list (see \`trimline strategies\`).
run: the agent, headless, in the workspace (default: the current directory); needs
ANTHROPIC_API_KEY, or ANTHROPIC_BASE_URL for an Anthropic-compatible endpoint.
Journals go to <workspace>/.trimline/sessions unless --sessions-dir says otherwise.
demo: a live agent session on a sample project (offline model unless ANTHROPIC_API_KEY or
ANTHROPIC_BASE_URL is set), shown in the inspector on 127.0.0.1.
proxy: point Claude Code or any Anthropic SDK client at it (ANTHROPIC_BASE_URL=<printed URL>);
the inspector is on the same address. Upstream: --upstream, else TRIMLINE_UPSTREAM, else
https://api.anthropic.com. Strategy none (default) only observes: the bytes go upstream unchanged.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP + '\n');
    return command ? 0 : 2;
  }
  const help = COMMAND_HELP[command];
  if (help !== undefined && wantsHelp(rest)) {
    process.stdout.write(help + '\n');
    return 0;
  }
  // `run` has its own options (workspace, session, model…): parsed in run.ts.
  if (command === 'run') return runAgentCli(rest);
  if (command === 'demo') return runDemo(rest);
  if (command === 'report') return relaunchReport(rest) ?? (await runReportCli(rest));
  if (command === 'proxy') return runProxy(rest);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      strategy: { type: 'string', short: 's' },
      config: { type: 'string', short: 'c' },
      json: { type: 'boolean' },
      jsonl: { type: 'boolean' },
      serve: { type: 'boolean' },
      port: { type: 'string', short: 'p' },
    },
  });
  const config = loadConfig(values.config);
  switch (command) {
    case 'inspect': {
      const file = positionals[0];
      if (!file) throw new UsageError('inspect: missing <file> (a transcript to inspect)');
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
      const file = positionals[0];
      if (!file) throw new UsageError('replay: missing <file> (a transcript to replay)');
      if (!values.jsonl) throw new UsageError('replay: output format is JSON lines; pass --jsonl');
      await runReplay(file, { strategy: values.strategy ?? 'default', config }, process.stdout);
      return 0;
    }
    case 'strategies':
      process.stdout.write(runStrategies(!!values.json) + '\n');
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
    } else if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' || /unknown strategy|unknown option|must be/.test(err.message)) {
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
