/**
 * Every `trimline` command's options, declared once with what they do (see args.ts): the
 * command parses its line with its declaration, and `trimline <command> --help` prints it.
 */
import { commandHelp, type CommandSpec } from './args';

/** A string option: its value's placeholder, what it does, and its short form. */
const str = (value: string, help: string, short?: string) =>
  ({ type: 'string', value, help, ...(short ? { short } : {}) }) as const;
/** A switch: what it does, and its short form. */
const flag = (help: string, short?: string) => ({ type: 'boolean', help, ...(short ? { short } : {}) }) as const;

const STRATEGY = str('S', 'strategy: none | default | a comma list (see `trimline strategies`)', 's');
const CONFIG = str('F', 'strategy options, a JSON file: {"strategies": {...}, "cacheAware": {...}}', 'c');
const PORT = str('N', 'port on 127.0.0.1 (0 or absent: a free port)', 'p');
const FILE_FORMATS = `<file>: a Claude Code session (.jsonl), a Cline api_conversation_history.json, OpenAI-style chat
messages (an array, a SWE-agent .traj or a mini-swe-agent trajectory), an OpenHands event stream,
a Trimline journal, or Anthropic Messages JSON (an array of messages or {system, tools, messages}).`;

export const RUN_COMMAND = {
  name: 'run',
  usage: ['trimline run "<prompt>" [options]'],
  about: `The agent, headless, in the workspace (default: the current directory). Needs ANTHROPIC_API_KEY,
or ANTHROPIC_BASE_URL for an Anthropic-compatible endpoint.`,
  positionals: true,
  options: {
    workspace: str('DIR', 'the directory the agent works in (default: the current one)', 'w'),
    session: str('ID', 'name the session: a new one, or an existing one to continue'),
    resume: str('ID', 'continue an existing session (refused when there is none)'),
    strategy: { ...STRATEGY, help: 'trimming strategy (default: default); none | default | a comma list' },
    model: str('M', 'model id sent to the API (default: claude-sonnet-4-6)', 'm'),
    'approve-commands': flag("run the agent's shell commands without asking"),
    'mcp-config': {
      ...str('F', 'MCP servers (VS Code `servers` or Claude Code `mcpServers` JSON); repeatable'),
      multiple: true,
    },
    'approve-mcp': flag('allow every MCP tool call without asking'),
    'sessions-dir': str('DIR', 'where journals go (default: <workspace>/.trimline/sessions)'),
    config: CONFIG,
    'max-tokens': str('N', 'max_tokens of each model call'),
  },
} as const satisfies CommandSpec;

export const INSPECT_COMMAND = {
  name: 'inspect',
  usage: [
    'trimline inspect <file> [--strategy S] [--config F] [--json]',
    'trimline inspect <file> --serve [--port N] [--strategy S] [--config F]',
  ],
  about: `What a transcript's requests hold and what strategy S would trim, as text, JSON, or served in
the inspector on 127.0.0.1.
${FILE_FORMATS}`,
  positionals: true,
  options: {
    strategy: {
      ...STRATEGY,
      help:
        'replay through strategy S (default: default for a transcript; a Trimline\njournal shows what was sent ' +
        'unless S is given)',
    },
    config: CONFIG,
    json: flag('the view as JSON (rows, totals, breakpoints, decisions)'),
    serve: flag('serve the inspector on 127.0.0.1 until Ctrl+C'),
    port: { ...PORT, help: 'with --serve: the port (0 or absent: a free port)' },
  },
} as const satisfies CommandSpec;

export const REPLAY_COMMAND = {
  name: 'replay',
  usage: ['trimline replay <file> --strategy S [--config F] --jsonl'],
  about: `Replays a transcript through strategy S and writes one JSON line per call: the request as it
would have been sent, the recorded usage beside it. With --strategy none, the requests the client sent.
${FILE_FORMATS}`,
  positionals: true,
  options: {
    strategy: { ...STRATEGY, help: 'replay through strategy S (default: default)' },
    config: CONFIG,
    jsonl: flag('JSON lines output (required: the only format)'),
  },
} as const satisfies CommandSpec;

export const STRATEGIES_COMMAND = {
  name: 'strategies',
  usage: ['trimline strategies [--json]'],
  about: 'Lists the trimming strategies and their options (for --strategy and config files).',
  options: { json: flag('the list as JSON') },
} as const satisfies CommandSpec;

export const REPORT_COMMAND = {
  name: 'report',
  usage: ['trimline report [PATH…] [options]'],
  about: `Prices recorded sessions against their real bill and shows what each strategy would have cost.
PATH: directories or files (default: ~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects).
A session is "anchored" when simulated none is within ±5% of its bill; only anchored sessions
count in the headline saving.`,
  positionals: true,
  options: {
    strategy: { ...STRATEGY, multiple: true, help: 'price strategy S too (repeatable; none and default always)' },
    since: str('DATE', 'only sessions with a call on or after DATE (e.g. 2026-01-31 or 20260131)'),
    until: str('DATE', 'only sessions with a call on or before DATE; both are local dates'),
    by: str('P', 'totals per day, week (from Monday) or month: sessions, calls, tokens, cost, savings'),
    timezone: str('TZ', "the zone for dates and periods (IANA, e.g. Europe/Paris; default: the system's)"),
    json: flag('the report as JSON (the output contract)'),
    html: str('FILE', 'also write the report as a self-contained HTML page'),
    config: CONFIG,
    quiet: flag('no progress lines on stderr', 'q'),
    cache: str('FILE', 'per-file result cache (default: in the user data directory)'),
    'no-cache': flag('read every file again, keep no cache'),
    workers: str('N', "worker threads (0: this thread; default: by the input's size)"),
    explain: str(
      'S',
      'per call of session S (id or file name): recorded usage, simulated none,\nand the rule deciding each difference',
    ),
  },
} as const satisfies CommandSpec;

export const ROUTE_COMMAND = {
  name: 'route',
  usage: ['trimline route --agent NAME [--agent NAME…] [options]', 'trimline route --list | --stop'],
  about: `Points the agents' own settings at a Trimline proxy this command runs, until Ctrl+C restores
every file byte for byte. Agents: claude-code (env.ANTHROPIC_BASE_URL in ~/.claude/settings.json,
or .claude/settings.local.json with --scope workspace), roo and kilo (a "Trimline proxy" profile
imported through their autoImportSettingsPath setting), continue (apiBase of the anthropic models
in ~/.continue/config.yaml), copilot (a Custom Endpoint group in chatLanguageModels.json), cline
(by hand: the steps and the URL are printed). Keys are never written.`,
  options: {
    agent: {
      ...str('NAME', 'route this agent (repeatable); nothing is routed that is not named', 'a'),
      multiple: true,
    },
    scope: str('S', 'user (default) or workspace: which settings file is changed'),
    port: { ...PORT, help: "the proxy's port (default: the one routed agents already point at, else a free one)" },
    upstream: str(
      'URL',
      'where the proxy forwards: --upstream, else $TRIMLINE_UPSTREAM, else https://api.anthropic.com',
    ),
    strategy: { ...STRATEGY, help: "the proxy's strategy (default: none, observe only)" },
    'user-dir': str('DIR', "VS Code's user settings folder (default: Code/User of this platform)"),
    list: flag('the agents found here and what routing each would change (also with no --agent)'),
    stop: flag('restore what a killed or crashed route left (the undo record is written first)'),
  },
} as const satisfies CommandSpec;

export const DEMO_COMMAND = {
  name: 'demo',
  usage: ['trimline demo [--port N] [--strategy S]'],
  about: `A live agent session on a sample project (offline model unless ANTHROPIC_API_KEY or
ANTHROPIC_BASE_URL is set), shown in the inspector on 127.0.0.1. \`npm start\` runs it.`,
  options: {
    port: { ...PORT, help: 'port on 127.0.0.1 (default: $PORT, else a free port)' },
    strategy: { ...STRATEGY, help: "the agent's trimming strategy (default: default)" },
  },
} as const satisfies CommandSpec;

export const PROXY_COMMAND = {
  name: 'proxy',
  usage: ['trimline proxy [options]'],
  about: `An Anthropic-compatible proxy on 127.0.0.1 with the inspector on the same address: point Claude
Code or any Anthropic SDK client at it (ANTHROPIC_BASE_URL=<printed URL>). Runs until Ctrl+C.`,
  options: {
    port: PORT,
    upstream: str('URL', 'where requests go: --upstream, else $TRIMLINE_UPSTREAM,\nelse https://api.anthropic.com'),
    strategy: {
      ...STRATEGY,
      help:
        'none (default) only observes: the bytes go upstream unchanged;\n' +
        'default trims cache-aware; or a comma list (see `trimline strategies`)',
    },
    config: CONFIG,
    journal: str(
      'DIR',
      'journal each proxied session (one .jsonl per session) in DIR\n' +
        '(default: proxy-sessions in the user data directory); `trimline inspect` reads them',
    ),
    'no-journal': flag('keep sessions in memory only'),
    'cache-diagnostics': flag(
      'ask the API why calls miss the prompt cache (adds its beta header and\n' +
        "diagnostics.previous_message_id); off: the client's bytes go as sent",
    ),
    verbose: flag(
      'session events on stderr: new sessions, journals continued, requests\n' +
        'sent untouched and why, deferred actions applied',
      'v',
    ),
  },
} as const satisfies CommandSpec;

export const STATUSLINE_COMMAND = {
  name: 'statusline',
  usage: ["trimline statusline  (Claude Code's status-line JSON on stdin)"],
  about: `One line for Claude Code's status line: context used, the last call's cache read share, the last
cache miss's reason, the session's cost and its saving against none. From the running proxy
when it proxies the session, else from the tail of the session's transcript. In Claude Code's
settings.json: {"statusLine": {"type": "command", "command": "trimline statusline"}}`,
  options: {},
} as const satisfies CommandSpec;

export const COMMANDS: readonly CommandSpec[] = [
  RUN_COMMAND,
  INSPECT_COMMAND,
  REPLAY_COMMAND,
  STRATEGIES_COMMAND,
  REPORT_COMMAND,
  DEMO_COMMAND,
  PROXY_COMMAND,
  ROUTE_COMMAND,
  STATUSLINE_COMMAND,
];

/** `trimline <command> --help` of every command. */
export const COMMAND_HELP: Readonly<Record<string, string>> = Object.fromEntries(
  COMMANDS.map((c) => [c.name, commandHelp(c)]),
);
