/**
 * `trimline statusline`: Claude Code's `statusLine` command. Reads the status-line JSON Claude
 * Code writes on stdin (session_id, transcript_path, model, cost…) and prints one line: context
 * used, the last call's cache read share, the last miss and why, the session's cost and the
 * saving against `none`. The facts come from the running proxy that proxies the session (found
 * by its state file, proxy-state.ts), else from the tail of the transcript. Never slow: the proxy
 * gets a short time to answer, the transcript is read from its end.
 */
import { request } from 'node:http';
import type { StatusFacts } from '../protocol/status';
import { terminalSafeLine } from '../protocol/safe-text';
import { statusFromTranscript } from '../core/status';
import { parseCommand } from './args';
import { STATUSLINE_COMMAND } from './commands';
import { UsageError } from './common';
import { runningProxies, userDataDir, type ProxyState } from './proxy-state';
import { missText } from './verdict-lines';

/** How long a proxy has to answer (the whole line must take well under 100 ms). */
const PROXY_TIMEOUT_MS = 40;
/** Proxies asked at most (the most recently started first). */
const MAX_PROXIES = 3;
/** Largest stdin accepted (Claude Code's JSON is a few KB). */
const MAX_INPUT_BYTES = 1024 * 1024;

/** The fields of Claude Code's status-line JSON this command reads (all optional). */
export interface StatusInput {
  readonly session_id?: string;
  readonly transcript_path?: string;
  readonly model?: { readonly id?: string; readonly display_name?: string };
  readonly cost?: { readonly total_cost_usd?: number };
  readonly context_window?: {
    readonly context_window_size?: number;
    /** The last call's usage (newer Claude Code versions). */
    readonly current_usage?: {
      readonly input_tokens?: number;
      readonly cache_creation_input_tokens?: number;
      readonly cache_read_input_tokens?: number;
    } | null;
  };
}

/** The last call's context and cache read share from Claude Code's own JSON, when it carries them. */
function fromInput(input: StatusInput): StatusFacts {
  const u = input.context_window?.current_usage;
  const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  const context = u ? n(u.input_tokens) + n(u.cache_creation_input_tokens) + n(u.cache_read_input_tokens) : 0;
  if (!u || !context) return { source: 'transcript', calls: 0 };
  const read = n(u.cache_read_input_tokens);
  return { source: 'transcript', calls: 1, contextTokens: context, cacheReadShare: read / context };
}

/** The facts from a proxy, or undefined (not running, not its session, refused: 403 without the token, slow). */
function askProxy(p: ProxyState, session: string): Promise<StatusFacts | undefined> {
  return new Promise((resolve) => {
    const url = new URL(`${p.url}/api/status`);
    url.searchParams.set('session', session);
    if (p.token) url.searchParams.set('token', p.token);
    const headers = p.token ? { 'x-trimline-token': p.token } : {};
    const req = request(url, { method: 'GET', timeout: PROXY_TIMEOUT_MS, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        try {
          resolve(res.statusCode === 200 ? (JSON.parse(body) as StatusFacts) : undefined);
        } catch {
          resolve(undefined);
        }
      });
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

/** The session's facts: the first proxy that has it, else the transcript's tail, else nothing known. */
export async function statusFacts(input: StatusInput, dataDir = userDataDir()): Promise<StatusFacts> {
  if (input.session_id) {
    for (const p of runningProxies(dataDir).slice(0, MAX_PROXIES)) {
      const facts = await askProxy(p, input.session_id);
      if (facts && facts.source === 'proxy') return facts;
    }
  }
  if (input.transcript_path) {
    try {
      const facts = statusFromTranscript(input.transcript_path);
      if (facts.calls > 0) return facts;
    } catch {
      // not written yet (a new session) or unreadable: what Claude Code's JSON says
    }
  }
  return fromInput(input);
}

function kTokens(n: number): string {
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  return n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
}
const dollars = (n: number): string => `$${n < 10 ? n.toFixed(2) : n.toFixed(1)}`;

/** The one line: context, cache read share, last miss, cost, saving vs none. */
export function formatStatus(f: StatusFacts, input: StatusInput): string {
  // Claude Code knows the window it runs with (a 1M beta or not): its figure first.
  const window = input.context_window?.context_window_size ?? f.contextWindow;
  const parts: string[] = [];
  if (f.contextTokens !== undefined) {
    const share = window ? `/${kTokens(window)} (${Math.round((100 * f.contextTokens) / window)}%)` : '';
    parts.push(`ctx ${kTokens(f.contextTokens)}${share}`);
  } else parts.push('ctx –');
  parts.push(f.cacheReadShare !== undefined ? `cache read ${Math.round(100 * f.cacheReadShare)}%` : 'cache read –');
  if (f.lastMiss) {
    const ago = f.calls - 1 - f.lastMiss.call;
    const when = ago === 0 ? 'last call' : `${ago} call${ago === 1 ? '' : 's'} ago`;
    parts.push(`last miss: ${missText(f.lastMiss.miss)} ${when}`);
  } else parts.push(f.calls > 1 ? 'no cache miss' : 'no miss yet');
  // Claude Code's own session cost (all calls, output included) when it gives one; else the proxy's input cost.
  const cost = input.cost?.total_cost_usd ?? f.cost;
  parts.push(cost !== undefined ? `${dollars(cost)} session` : '$– session');
  parts.push(f.savingVsNone !== undefined ? `saved ${dollars(f.savingVsNone)} vs none` : 'saving vs none: not proxied');
  return `trimline · ${parts.join(' · ')}`;
}

function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stdin.setEncoding('utf8');
    stdin.on('data', (c: string) => {
      text += c;
      if (text.length > MAX_INPUT_BYTES) reject(new UsageError('statusline: stdin is larger than a status-line JSON'));
    });
    stdin.on('end', () => resolve(text));
    stdin.on('error', reject);
  });
}

export async function runStatusline(
  args: readonly string[],
  stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  parseCommand(STATUSLINE_COMMAND, args);
  if (stdin.isTTY) {
    throw new UsageError("statusline: reads Claude Code's status-line JSON on stdin (see --help)");
  }
  let input: StatusInput;
  try {
    const v = JSON.parse(await readStdin(stdin)) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
    input = v as StatusInput;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError("statusline: stdin is not Claude Code's status-line JSON (an object with session_id…)");
  }
  const facts = await statusFacts(input);
  // Model names and miss descriptions come from files and the network: one safe line.
  out.write(`${terminalSafeLine(formatStatus(facts, input))}\n`);
  return 0;
}
