/**
 * `trimline <command> --help`: the command's usage and what its options do.
 * Every command of main.ts has an entry (a test checks it).
 */
import { PROXY_USAGE } from './proxy';
import { REPORT_USAGE } from './report';
import { RUN_USAGE } from './run';

export const COMMAND_HELP: Readonly<Record<string, string>> = {
  run: `Usage: ${RUN_USAGE}

The agent, headless, in the workspace (default: the current directory). Needs ANTHROPIC_API_KEY,
or ANTHROPIC_BASE_URL for an Anthropic-compatible endpoint. Journals go to
<workspace>/.trimline/sessions unless --sessions-dir says otherwise.`,
  inspect: `Usage:
  trimline inspect <file> [--strategy S] [--config F] [--json]
  trimline inspect <file> --serve [--port N] [--strategy S] [--config F]

What a transcript's requests hold and what strategy S (default: default) would trim, as text,
JSON, or served in the inspector on 127.0.0.1. <file>: a Claude Code session (.jsonl), a Cline
api_conversation_history.json, OpenAI-style chat messages (SWE-agent .traj, mini-swe-agent), OpenHands events, or
Anthropic Messages JSON.`,
  replay: `Usage: trimline replay <file> --strategy S [--config F] --jsonl

Replays a transcript through strategy S and writes one JSON line per call (requests as they would
have been sent, recorded usage beside them).`,
  strategies: `Usage: trimline strategies [--json]

Lists the trimming strategies and their options (for --strategy and config files).`,
  report: `Usage: ${REPORT_USAGE}

Prices recorded sessions against their real bill and shows what each strategy would have cost.
PATH: directories or files (default: ~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects).
  --strategy S   price strategy S too (repeatable; none and default always)
  --since DATE   only sessions with a call on or after DATE (e.g. 2026-01-31 or 20260131)
  --until DATE   only sessions with a call on or before DATE; both are local dates
  --by P         totals per day, week (from Monday) or month: sessions, calls, tokens, cost, savings
  --timezone TZ  the zone for dates and periods (IANA, e.g. Europe/Paris; default: the system's)
  --json         the report as JSON (the output contract)    --html FILE  also write an HTML page
  --config F     strategy options                            --cache FILE | --no-cache  per-file cache
  --workers N    worker threads (0: this thread; default: by the input's size)
  --explain S    per call of session S (id or file name): recorded usage, simulated none, the rule deciding each difference
A session is "anchored" when simulated none is within ±5% of its bill; only anchored sessions
count in the headline saving.`,
  demo: `Usage: trimline demo [--port N] [--strategy S]

A live agent session on a sample project (offline model unless ANTHROPIC_API_KEY or
ANTHROPIC_BASE_URL is set), shown in the inspector on 127.0.0.1.`,
  proxy: `Usage: ${PROXY_USAGE}

Point Claude Code or any Anthropic SDK client at it (ANTHROPIC_BASE_URL=<printed URL>); the
inspector is on the same address. Upstream: --upstream, else TRIMLINE_UPSTREAM, else
https://api.anthropic.com. Strategy none (default) only observes: the bytes go upstream unchanged.`,
};

/** `--help` or `-h` among a command's arguments (before a `--`). */
export function wantsHelp(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}
