/**
 * Ground truth under the documented cache rules: recorded sessions replayed through the real proxy
 * path (`startProxy`, the engine behind it) to the local API server, both on the recorded clock.
 * The client's requests are shaped as Claude Code sends them: the recorded messages, a system prompt
 * of the size the recorded usage implies (report/client-prefix.ts) with its breakpoint, a breakpoint
 * on the last message's last block, the recorded TTL (1 hour where the recording wrote 1-hour) and
 * the session-id header; no tool definitions and no thinking parameters. The server's usage follows
 * the documented rules (per-model minimum, 20-block lookback, 5m/1h TTL; src/core/cache/simulator.ts)
 * and is priced by the one price table. `none` then `default`, each on a fresh server and proxy;
 * the ratio is compared per session with the report's default/none.
 *
 * Sizes are the server's (characters / 3.5, the report's own ratio), not the recorded ones: absolute
 * dollars differ from the report's, the ratio default/none is what is compared. The shared part of
 * the system prompt is kept warm as the client's other sessions kept it (a system-only read before
 * each call) when the recording's first call read it from the cache.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { inputSideCost } from '../../src/core/cache/cost';
import { recordedTtl } from '../../src/core/engine/replay';
import { parseTranscript } from '../../src/core/import';
import { modelPrice } from '../../src/core/models';
import { inferClientPrefix } from '../../src/core/report';
import { reportFile } from '../../src/core/report/session-report';
import { sizeSession } from '../../src/core/report/sizing';
import { sizesByCall } from '../../src/core/report/rewrites';
import type { BillMessage } from '../../src/core/report/bill-types';
import { RESULT_NOT_RECORDED } from '../../src/core/request/assemble';
import { blockIdentityJson } from '../../src/core/api/cache-rules';
import type { ContentBlockParam, ImportedSession } from '../../src/core/session/types';
import { blockTokens, CHARS_PER_TOKEN } from '../../src/dev/tokens';
import { startTestServer } from '../../src/dev/server';
import { SESSION_HEADER } from '../../src/core/proxy/session-key';
import { startProxy } from '../../src/host/proxy/server';

export interface TruthRow {
  readonly session: string;
  readonly calls: number;
  /** USD, input side, by the server's usage. */
  readonly none: number;
  readonly default: number;
  /** The report's default / none on the same session (undefined: not anchored or not priced). */
  readonly reportRatio?: number;
  /** Requests the server refused (status ≠ 200), per strategy. */
  readonly refused: { none: number; default: number };
}

const FILLER = 'The client system prompt and tool definitions the transcript does not hold. ';

function systemText(tokens: number): string {
  const chars = Math.round(tokens * CHARS_PER_TOKEN);
  return FILLER.repeat(Math.ceil(chars / FILLER.length)).slice(0, chars);
}

function cacheable(b: ContentBlockParam): boolean {
  return b.type !== 'thinking' && b.type !== 'redacted_thinking' && !(b.type === 'text' && !b.text.trim());
}

/**
 * Claude Code's system prompt: the part shared with its other sessions, then this session's, each with a breakpoint.
 */
export interface ClientSystem {
  readonly shared: string;
  readonly session: string;
  /** Other sessions of the client keep the shared part warm (the first call read it from the cache). */
  readonly sharedWarm: boolean;
}

type ClientMessage = { role: string; content: ContentBlockParam[] };

/**
 * A tool use the transcript records no result for (an interrupted call) gets one, as the client sends it: the API
 * refuses a tool_use without a tool_result right after it. The engine's builder answers it the same way.
 */
function answerToolUses(messages: ClientMessage[]): void {
  for (let k = 0; k < messages.length; k++) {
    if (messages[k].role !== 'assistant') continue;
    const ids = messages[k].content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
    if (!ids.length) continue;
    const next = messages[k + 1]?.role === 'user' ? messages[k + 1] : undefined;
    const answered = new Set(next?.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])));
    const missing = ids
      .filter((id) => !answered.has(id))
      .map((id) => ({ type: 'tool_result', tool_use_id: id, content: RESULT_NOT_RECORDED }) as ContentBlockParam);
    if (!missing.length) continue;
    if (next) messages[k + 1] = { role: 'user', content: [...missing, ...next.content] };
    else messages.splice(k + 1, 0, { role: 'user', content: missing });
  }
}

/** Claude Code's request for one recorded call. */
function clientBody(imp: ImportedSession, i: number, sys: ClientSystem, model: string): Record<string, unknown> {
  const call = imp.calls[i];
  const ttl = recordedTtl(call);
  const cc = ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  // Blank text blocks are in the transcript but not in what the client sends (the API refuses them).
  const sent = (b: ContentBlockParam): boolean => !(b.type === 'text' && !b.text.trim());
  const messages: ClientMessage[] = imp.messages
    .slice(call.epochStart, call.at)
    .map((m) => ({ role: m.role, content: m.blocks.map((b) => b.param).filter(sent) }))
    .filter((m) => m.content.length > 0);
  answerToolUses(messages);
  for (let k = messages.length - 1; k >= 0; k--) {
    const at = messages[k].content.map(cacheable).lastIndexOf(true);
    if (at < 0) continue;
    messages[k] = {
      ...messages[k],
      content: messages[k].content.map((b, j) => (j === at ? { ...b, cache_control: cc } : b)) as ContentBlockParam[],
    };
    break;
  }
  const system = [sys.shared, sys.session]
    .filter((t) => t.length > 0)
    .map((text) => ({ type: 'text', text, cache_control: cc }));
  return { model: call.model ?? model, max_tokens: 1024, system, messages };
}

/**
 * The server's token count of a block: the size the recorded usage implies for a block of the transcript (sizing.ts,
 * the real tokenizer's counts spread over the blocks; per call, as the client sent it: a later rewrite's shrinking
 * applies from that call on, rewrites.ts), else the server's own estimate (a block a strategy rewrote).
 */
export interface RecordedMeter {
  /** Sizes as of call `i` (set before each request). */
  at(i: number): void;
  readonly tokensOf: (block: object) => number;
}

export function recordedMeter(imp: ImportedSession, model: string): RecordedMeter {
  const sized = sizeSession(imp, model);
  const byCall = sizesByCall(sized.messages, sized.rewrites);
  const bytes = imp.messages.map((m) => m.blocks.map((b) => blockIdentityJson(b.param)));
  let current: readonly BillMessage[] | undefined;
  let byBytes = new Map<string, number>();
  return {
    at(i) {
      const messages = byCall(i);
      if (messages === current) return;
      current = messages;
      byBytes = new Map();
      messages.forEach((m, mi) => m.blocks.forEach((b, bi) => byBytes.set(bytes[mi][bi], b.tokens)));
    },
    tokensOf: (block) => {
      const t = byBytes.get(blockIdentityJson(block));
      return t !== undefined ? Math.round(t) : blockTokens(block);
    },
  };
}

/** One call's answer from the server, through the proxy. */
export interface TruthCall {
  readonly call: number;
  readonly at: number;
  readonly usage: { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };
  readonly usd: number;
  /** Where the upstream request carried message breakpoints: `message.block` of each, in request positions. */
  readonly breakpoints: string[];
  /** Messages of the upstream request. */
  readonly messages: number;
}

/** One session through the proxy with one strategy: USD by the server's usage, refusals, and each call's usage. */
export async function drive(
  imp: ImportedSession,
  strategy: string,
  system: ClientSystem,
  model: string,
  sessionId: string,
  meter?: RecordedMeter,
): Promise<{ usd: number; refused: number; calls: TruthCall[] }> {
  let clock = 0;
  const server = await startTestServer({ now: () => clock, fallback: 'echo', tokensOf: meter?.tokensOf });
  const proxy = await startProxy({
    upstream: server.url,
    strategy,
    now: () => clock,
    log: process.env.TRUTH_LOG ? (l) => process.stderr.write(`${l}\n`) : undefined,
  });
  let usd = 0;
  let refused = 0;
  const calls: TruthCall[] = [];
  try {
    let last = 0;
    for (let i = 0; i < imp.calls.length; i++) {
      const call = imp.calls[i];
      if (call.at <= call.epochStart) continue;
      const t = call.timestamp ? Date.parse(call.timestamp) : NaN;
      clock = Number.isFinite(t) ? Math.max(t, last) : last + 1000;
      last = clock;
      meter?.at(i);
      const body = clientBody(imp, i, system, model);
      // Another session of the client reads the shared part just before: it stays warm, as in the recording.
      if (system.sharedWarm && system.shared)
        server.cache.stepSystem(String(body.model), [(body.system as object[])[0]], blockTokens, clock);
      const res = await fetch(`${proxy.url}/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': 'test',
          'anthropic-version': '2023-06-01',
          [SESSION_HEADER]: sessionId,
        },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as {
        usage?: {
          input_tokens: number;
          cache_creation_input_tokens?: number;
          cache_read_input_tokens?: number;
          cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number };
        };
      };
      if (res.status !== 200 || !json.usage) {
        if (!refused && process.env.TRUTH_LOG)
          process.stderr.write(
            `${sessionId} call ${i} (${strategy}): ${res.status} ${JSON.stringify(json).slice(0, 300)}\n`,
          );
        refused++;
        continue;
      }
      const u = json.usage;
      const c = inputSideCost(
        {
          input_tokens: u.input_tokens,
          cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
          cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
          cache_creation: u.cache_creation,
        },
        modelPrice(String(body.model)),
        recordedTtl(call) ?? '5m',
      );
      usd += c.input + c.cacheWrite + c.cacheRead;
      const sent = server.requests[server.requests.length - 1]?.body as { messages?: { content: unknown }[] };
      const marks: string[] = [];
      sent?.messages?.forEach((m, mi) =>
        (Array.isArray(m.content) ? (m.content as { cache_control?: unknown }[]) : []).forEach(
          (b, bi) => b.cache_control && marks.push(`${mi}.${bi}`),
        ),
      );
      calls.push({
        call: i,
        breakpoints: marks,
        messages: sent?.messages?.length ?? 0,
        at: clock,
        usd: c.input + c.cacheWrite + c.cacheRead,
        usage: {
          input_tokens: u.input_tokens,
          cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
          cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
        },
      });
    }
  } finally {
    await proxy.close();
    await server.close();
  }
  return { usd, refused, calls };
}

/** The report's default / none for a file's main conversation (anchored rows only). */
function reportRatio(file: string, text: string): number | undefined {
  const r = reportFile(file, text, new Set(), { strategies: ['default'], config: {} });
  const row = r.rows.find((x) => !x.sidechain && x.fit.status === 'anchored');
  const n = row?.strategies.none?.inputCost;
  const d = row?.strategies.default?.inputCost;
  return n && d !== undefined ? d / n : undefined;
}

/** The client's system prompt for a session: sized by the report's inference (client-prefix.ts). */
export function clientSystem(imp: ImportedSession): ClientSystem {
  const prefix = inferClientPrefix(imp);
  const shared = prefix?.shared ?? 0;
  return {
    shared: systemText(shared),
    session: systemText((prefix?.tokens ?? 0) - shared),
    sharedWarm: shared > 0,
  };
}

export async function groundTruth(files: readonly string[], minCalls = 10): Promise<TruthRow[]> {
  const rows: TruthRow[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    let imp: ImportedSession;
    try {
      imp = parseTranscript(text, file);
    } catch {
      continue;
    }
    if (imp.calls.length < minCalls) continue;
    const model = imp.model ?? imp.calls.find((c) => c.model)?.model ?? 'claude-sonnet-4-5';
    const system = clientSystem(imp);
    const id =
      basename(file)
        .replace(/[^A-Za-z0-9._-]/g, '')
        .slice(0, 60) || 'session';
    const meter = recordedMeter(imp, model);
    const none = await drive(imp, 'none', system, model, id, meter);
    const def = await drive(imp, 'default', system, model, id, meter);
    rows.push({
      session: basename(file).slice(0, 8),
      calls: imp.calls.length,
      none: none.usd,
      default: def.usd,
      reportRatio: reportRatio(file, text),
      refused: { none: none.refused, default: def.refused },
    });
  }
  return rows;
}

export function formatTruth(rows: readonly TruthRow[]): string[] {
  const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
  const out = [
    '| session | calls | none $ | default $ | default/none | report default/none | difference | refused (none/default) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  let n = 0;
  let d = 0;
  for (const r of rows) {
    const ratio = r.none > 0 ? r.default / r.none : NaN;
    const diff = r.reportRatio !== undefined ? `${((ratio - r.reportRatio) * 100).toFixed(1)} pts` : '—';
    out.push(
      `| ${r.session} | ${r.calls} | ${r.none.toFixed(3)} | ${r.default.toFixed(3)} | ${pct(ratio)} | ${r.reportRatio !== undefined ? pct(r.reportRatio) : '—'} | ${diff} | ${r.refused.none}/${r.refused.default} |`,
    );
    n += r.none;
    d += r.default;
  }
  out.push(`| all | | ${n.toFixed(2)} | ${d.toFixed(2)} | ${pct(n > 0 ? d / n : NaN)} | | | |`);
  return out;
}

/** The bench section: every shared set's sessions of at least 10 calls (TRUTH_SETS: comma list of set names). */
export async function groundTruthSection(): Promise<string[]> {
  const base = process.env.TRUTH_TRANSCRIPTS ?? join(process.cwd(), '..', 'shared', 'data', 'transcripts');
  const sets = (process.env.TRUTH_SETS ?? 'm-claude,entire-dev').split(',');
  const out = [
    '## Ground truth: recorded sessions through the proxy, on the recorded clock',
    '',
    "test/bench/ground-truth.ts: `none` then `default` through `startProxy` to the local server (documented cache rules), requests shaped like Claude Code's; default/none compared with the report's per session.",
    '',
  ];
  for (const set of sets) {
    const dir = join(base, set);
    if (!existsSync(dir)) continue;
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => join(dir, f));
    out.push(`### ${set}`, '', ...formatTruth(await groundTruth(files)), '');
  }
  return out;
}
