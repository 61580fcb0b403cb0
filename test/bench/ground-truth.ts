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
 * The client's requests and the server's sizes are test/bench/truth-client.ts's: the facts the
 * recording gives about the client (sizes per call, cleared results, rewrites of its system prompt, its
 * own invalidations, request times), read by the report's fit, so the two sides differ only in what
 * the proxy and the server do. The shared part of the system prompt is kept warm as the client's other
 * sessions kept it (a system-only read before each call) when the recording's first call read it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { inputSideCost } from '../../src/core/cache/cost';
import { recordedTtl } from '../../src/core/engine/replay';
import { modelPrice } from '../../src/core/models';
import { reportFile } from '../../src/core/report/session-report';
import { blockTokens } from '../../src/dev/tokens';
import { formatYardsticks, yardsticks } from './yardsticks';
import {
  clientBody,
  clientFacts,
  earlierWarmAtStart,
  recordedMeter,
  sharedWarm,
  turnEndRequest,
  type ClientFacts,
  type RecordedMeter,
} from './truth-client';
import { startTestServer } from '../../src/dev/server';
import { SESSION_HEADER } from '../../src/core/proxy/session-key';
import { startProxy } from '../../src/host/proxy/server';

export interface TruthRow {
  readonly file: string;
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
  f: ClientFacts,
  strategy: string,
  sessionId: string,
  meter?: RecordedMeter,
): Promise<{ usd: number; refused: number; calls: TruthCall[] }> {
  let clock = 0;
  let refresh = 0;
  /** What the client did before this call that the recording does not hold, given what the proxy sent for it. */
  let beforeCache: ((sent: object) => void) | undefined;
  const server = await startTestServer({
    now: () => clock,
    refresh: () => Math.max(refresh, clock),
    fallback: 'echo',
    tokensOf: meter?.tokensOf,
    beforeCache: (body) => {
      const h = beforeCache;
      beforeCache = undefined;
      h?.(body);
    },
  });
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
    const { imp, fit } = f;
    const invalidated = new Set(fit.invalidations);
    let last = 0;
    let started = false;
    for (let i = 0; i < imp.calls.length; i++) {
      const call = imp.calls[i];
      if (call.at <= call.epochStart) continue;
      // The recorded request time (the report's clock, fit.ts callTimings).
      clock = Math.max(fit.timings[i].now, last);
      last = clock;
      // The entries it uses start their TTL again at the recorded end of its response.
      refresh = fit.timings[i].refresh;
      meter?.at(i);
      const body = clientBody(f, i);
      const system = body.system as Record<string, unknown>[];
      if (!started && earlierWarmAtStart(f, String(body.model)) && system.length > 0) {
        // The first call read its earlier conversation: the calls before the transcript left it in cache.
        const cc = (system[0].cache_control as object | undefined) ?? { type: 'ephemeral' };
        const warm = system.map((b, j) => (j === system.length - 1 ? { ...b, cache_control: cc } : b));
        server.cache.stepSystem(String(body.model), warm, blockTokens, clock, clock);
      }
      started = true;
      // The client changed its messages in a way the transcript does not hold: nothing past the system prompt is read.
      if (invalidated.has(i)) server.cache.invalidateMessages();
      const [now, until] = [clock, refresh];
      beforeCache = (sent) => {
        // When the previous turn ended, the client wrote the cache through its response with a request the
        // transcript does not hold: what the proxy sent for this call, up to that response (not priced: unrecorded).
        const w = turnEndRequest(f, i, sent);
        if (w) server.cache.step(w.body as never, meter?.tokensOf ?? blockTokens, w.at, w.at);
        // Another session of the client reads the shared part just before: it stays warm, as in the recording (not
        // where the recording read less than it).
        if (sharedWarm(f, String(body.model)) && fit.othersWarm[i] !== false)
          server.cache.stepSystem(String(body.model), [(body.system as object[])[0]], blockTokens, now, until);
      };
      // Between a response and the next request the proxy is idle (the model answered, tools ran): it has made its
      // estimated token counts exact, as it does while idle.
      while (proxy.engine.refineStep(Number.MAX_SAFE_INTEGER));
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
      beforeCache = undefined;
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
      if (process.env.TRUTH_DUMP === `${strategy}:${i}`) process.stderr.write(`${JSON.stringify(sent)}\n`);
      const marks: string[] = [];
      sent?.messages?.forEach((m, mi) =>
        (Array.isArray(m.content) ? (m.content as { cache_control?: unknown }[]) : []).forEach(
          (b, bi) => b.cache_control && marks.push(`${mi}.${bi}`),
        ),
      );
      if (process.env.TRUTH_CALLS === strategy)
        process.stderr.write(
          `TRUTH ${i} ${JSON.stringify(u)} ${c.input + c.cacheWrite + c.cacheRead} marks=${marks.join(',')} n=${sent?.messages?.length}\n`,
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

/** The report's default / none for a file's main conversation (anchored rows only), a subagent file's own. */
function reportRatio(file: string, text: string): number | undefined {
  const r = reportFile(file, text, new Set(), { strategies: ['default'], config: {} });
  // The main conversation, else (a subagent's own file) its first: the conversation the client facts are of.
  const main = r.rows.some((x) => !x.sidechain) ? r.rows.filter((x) => !x.sidechain) : r.rows.slice(0, 1);
  const row = main.find((x) => x.fit.status === 'anchored');
  const n = row?.strategies.none?.inputCost;
  const d = row?.strategies.default?.inputCost;
  return n && d !== undefined ? d / n : undefined;
}

export async function groundTruth(files: readonly string[], minCalls = 10): Promise<TruthRow[]> {
  const rows: TruthRow[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    let f: ClientFacts | undefined;
    try {
      f = clientFacts(file, text);
    } catch {
      continue;
    }
    if (!f || f.imp.calls.length < minCalls) continue;
    const id =
      basename(file)
        .replace(/[^A-Za-z0-9._-]/g, '')
        .slice(0, 60) || 'session';
    const meter = recordedMeter(f);
    const none = await drive(f, 'none', id, meter);
    const def = await drive(f, 'default', id, meter);
    rows.push({
      file,
      session: basename(file).slice(0, 8),
      calls: f.imp.calls.length,
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
    const rows = await groundTruth(files);
    out.push(`### ${set}`, '', ...formatTruth(rows), '');
    out.push(
      `#### ${set}: four yardsticks`,
      '',
      "`default`'s cost as a share of `none`'s per session: the bench's engine section, `trimline report`, `trimline inspect` and the ground truth above (test/bench/yardsticks.ts).",
      '',
      ...formatYardsticks(rows.map((r) => yardsticks(r.file, r))),
      '',
    );
  }
  return out;
}
