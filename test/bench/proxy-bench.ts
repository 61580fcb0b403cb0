/**
 * The proxy's cost to a client (section `proxy` of `npm run bench`):
 * - added latency per request: the real SDK calls the local test server directly and
 *   through `trimline proxy` (its own process, journal on, as the CLI runs it) in the same
 *   run, alternating,
 *   on a Claude-Code-shaped session of 100 and 1,000 messages that grows by one tool round
 *   per call; p50/p99 of each and of the paired difference, and time to the first streamed
 *   event;
 * - cold build: a proxy meeting a 5,000-message session for the first time (match + append
 *   + prepare + upstream body), with counts deferred (what the proxy does) and exact on the
 *   request path (what it did before), plus the background work of making the counts exact.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { ProxyEngine } from '../../src/core/proxy/proxy-engine';
import { warmEncoder } from '../../src/core/tokens';
import { ccBody, ccMessages, roundAssistant, roundResults } from './proxy-session';

/** Session lengths for the latency runs (the aim: ≤ 5 ms added at 1,000 messages with `default`). */
const LATENCY_SIZES = [100, 1000];
/** Paired requests per run: enough for a p99 that is more than the maximum of a handful. */
const LATENCY_CALLS = 60;
const COLD_SIZE = 5000;
const COLD_REPEATS = 3;
/**
 * The floor any HTTP proxy pays here: a plain Node pass-through (request and response piped,
 * nothing parsed), measured like the others. What `none` adds beyond it is Trimline's own.
 */
const PASS_THROUGH = 'pass-through (plain Node pipe)';
const PASS_THROUGH_PROXY = `
const http = require('http');
const up = new URL(process.argv[1]);
const srv = http.createServer((req, res) => {
  const u = http.request({ host: up.hostname, port: up.port, path: req.url, method: req.method, headers: { ...req.headers, host: up.host } }, (ur) => {
    res.writeHead(ur.statusCode, ur.headers);
    ur.pipe(res);
  });
  req.pipe(u);
});
srv.listen(0, '127.0.0.1', () => console.log('Trimline proxy: http://127.0.0.1:' + srv.address().port));
`;
const ENGINE_STRATEGIES = ['none', 'default'];
const STRATEGIES = [PASS_THROUGH, ...ENGINE_STRATEGIES];
/** js-tiktoken's measured speed here (~1.2 MB/s), for the wait after a proxy's cold build. */
const TOKENIZER_BYTES_PER_MS = 1200;
const COLD_REFINE_GRACE_MS = 1000;
/** A stuck call fails the bench instead of hanging it. */
const CALL_TIMEOUT_MS = 60_000;
/** The test server's context window for these runs (its 200k would refuse the 1,000-message session). */
const SERVER_WINDOW = 10_000_000;
/** Output of a spawned server kept while looking for its URL line. */
const PRINT_LIMIT = 64 * 1024;

export interface LatencyRow {
  strategy: string;
  messages: number;
  bodyMB: number;
  directP50: number;
  directP99: number;
  proxyP50: number;
  proxyP99: number;
  addedP50: number;
  addedP99: number;
  ttfbDirectP50: number;
  ttfbProxyP50: number;
  ttfbAddedP99: number;
  /** The proxy engine's own request path (ProxyEngine.onRequest, in process): the part of `added` that is not I/O. */
  requestPathP50: number;
  requestPathP99: number;
}

export interface ColdRow {
  strategy: string;
  messages: number;
  bodyMB: number;
  counting: 'deferred' | 'exact';
  /** onRequest: what the client waits for before its request goes upstream. */
  requestMs: number;
  /** CPU time of the same (user + system): less sensitive than wall time to a machine shared with other work. */
  requestCpuMs: number;
  /** afterForward: the inspector's view of the call, on the event loop right after forwarding. */
  afterMs: number;
  /** Making every deferred count exact, in steps between requests. */
  refineMs: number;
}

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

async function timed(
  client: Anthropic,
  body: Record<string, unknown>,
  sessionId: string,
): Promise<{ total: number; ttfb: number }> {
  const t0 = performance.now();
  const stream = (await client.beta.messages.create(body as unknown as Anthropic.Beta.MessageCreateParamsStreaming, {
    headers: { 'x-claude-code-session-id': sessionId },
  })) as AsyncIterable<unknown>;
  let ttfb = -1;
  for await (const ev of stream) if (ttfb < 0 && ev) ttfb = performance.now() - t0;
  return { total: performance.now() - t0, ttfb };
}

/** A built entry point (`npm run bench` builds first) run as its own process, resolved with the URL it prints. */
export function spawnUrl(args: readonly string[], pattern: RegExp): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    // Keep reading: the test server logs every request, and a full pipe would stall it.
    child.stdout!.on('data', (c: Buffer) => {
      if (out.length > PRINT_LIMIT) return;
      out += c.toString();
      const m = pattern.exec(out);
      if (m) ok({ child, url: m[1] });
    });
    child.stderr!.resume();
    child.on('exit', (code) => fail(new Error(`${args.join(' ')} exited ${code}: ${out.slice(0, 500)}`)));
  });
}

/** The proxy engine's own work per request (ProxyEngine.onRequest, in process, no I/O) on the same growing session. */
function requestPath(strategy: string, size: number): number[] {
  const engine = new ProxyEngine({ strategy });
  const messages = ccMessages(size);
  engine.onRequest(Buffer.from(JSON.stringify(ccBody(messages, 'bench-path'))), {}, 0);
  const out: number[] = [];
  for (let k = 0; k < LATENCY_CALLS; k++) {
    while (engine.refineStep());
    messages.push(roundAssistant(100_000 + k), roundResults(100_000 + k));
    const raw = Buffer.from(JSON.stringify(ccBody(messages, 'bench-path')));
    const t = performance.now();
    engine.onRequest(raw, {}, k + 1);
    out.push(performance.now() - t);
  }
  return out;
}

/**
 * Client (this process, the real SDK), proxy (`dist/cli.js proxy`, journal on) and test server
 * (`dist/dev-server.js`) each in their own process, as in use: the proxy's background work
 * competes with its own relaying only.
 */
export async function benchProxyLatency(): Promise<LatencyRow[]> {
  // The synthetic reads are denser than the test server's 3.5 chars per token assumes: lift its window.
  const server = await spawnUrl(
    [resolve('dist/dev-server.js'), '--port', '0', '--fallback', 'echo', '--context-window', String(SERVER_WINDOW)],
    /listening on (http:\/\/\S+)/,
  );
  const rows: LatencyRow[] = [];
  try {
    for (const size of LATENCY_SIZES) {
      for (const strategy of STRATEGIES) {
        const journalDir = mkdtempSync(join(tmpdir(), 'trimline-bench-proxy-'));
        const proxy =
          strategy === PASS_THROUGH
            ? await spawnUrl(['-e', PASS_THROUGH_PROXY, server.url], /^Trimline proxy: (http:\/\/\S+)$/m)
            : await spawnUrl(
                [
                  resolve('dist/cli.js'),
                  'proxy',
                  '--port',
                  '0',
                  '--upstream',
                  server.url,
                  '--strategy',
                  strategy,
                  '--journal',
                  journalDir,
                ],
                /^Trimline proxy: (http:\/\/\S+)$/m,
              );
        const direct = new Anthropic({
          apiKey: 'sk-ant-bench',
          baseURL: server.url,
          maxRetries: 0,
          timeout: CALL_TIMEOUT_MS,
        });
        const viaProxy = new Anthropic({
          apiKey: 'sk-ant-bench',
          baseURL: proxy.url,
          maxRetries: 0,
          timeout: CALL_TIMEOUT_MS,
        });
        const sessionId = `bench-${strategy}-${size}`;
        const messages = ccMessages(size);
        const d: { total: number; ttfb: number }[] = [];
        const p: { total: number; ttfb: number }[] = [];
        let bytes = 0;
        try {
          // The session's first call (the cold build) is not a per-request latency: warm both paths.
          await timed(direct, ccBody(messages, sessionId), sessionId);
          await timed(viaProxy, ccBody(messages, sessionId), sessionId);
          // A proxy meeting a session mid-way estimates its token counts from characters and makes
          // them exact in the background, once (the cold-build table measures that). Let it finish
          // before measuring per-request latency, as it has for a session it has followed from the start.
          await new Promise((ok) =>
            setTimeout(
              ok,
              COLD_REFINE_GRACE_MS + (JSON.stringify(ccBody(messages, sessionId)).length / TOKENIZER_BYTES_PER_MS) * 2,
            ),
          );
          for (let k = 0; k < LATENCY_CALLS; k++) {
            messages.push(roundAssistant(100_000 + k), roundResults(100_000 + k));
            const body = ccBody(messages, sessionId);
            bytes = JSON.stringify(body).length;
            // Alternate the order so neither path always meets a warmer server.
            if (k % 2 === 0) {
              d.push(await timed(direct, body, sessionId));
              p.push(await timed(viaProxy, body, sessionId));
            } else {
              p.push(await timed(viaProxy, body, sessionId));
              d.push(await timed(direct, body, sessionId));
            }
          }
        } finally {
          proxy.child.kill();
          rmSync(journalDir, { recursive: true, force: true });
        }
        const path = strategy === PASS_THROUGH ? [0] : requestPath(strategy, size);
        const added = p.map((x, i) => x.total - d[i].total);
        const addedTtfb = p.map((x, i) => x.ttfb - d[i].ttfb);
        rows.push({
          strategy,
          messages: size,
          bodyMB: bytes / 1e6,
          directP50: quantile(
            d.map((x) => x.total),
            0.5,
          ),
          directP99: quantile(
            d.map((x) => x.total),
            0.99,
          ),
          proxyP50: quantile(
            p.map((x) => x.total),
            0.5,
          ),
          proxyP99: quantile(
            p.map((x) => x.total),
            0.99,
          ),
          addedP50: quantile(added, 0.5),
          addedP99: quantile(added, 0.99),
          ttfbDirectP50: quantile(
            d.map((x) => x.ttfb),
            0.5,
          ),
          ttfbProxyP50: quantile(
            p.map((x) => x.ttfb),
            0.5,
          ),
          ttfbAddedP99: quantile(addedTtfb, 0.99),
          requestPathP50: quantile(path, 0.5),
          requestPathP99: quantile(path, 0.99),
        });
        process.stderr.write(
          `proxy ${strategy} ${size} messages: +${rows[rows.length - 1].addedP50.toFixed(2)} ms p50\n`,
        );
      }
    }
  } finally {
    server.child.kill();
  }
  return rows;
}

function median(xs: number[]): number {
  return quantile(xs, 0.5);
}

export function benchColdBuild(): ColdRow[] {
  // A running proxy has built the tokenizer at start (server.ts): so does this measurement.
  warmEncoder();
  const raw = Buffer.from(JSON.stringify(ccBody(ccMessages(COLD_SIZE), 'bench-cold')));
  const rows: ColdRow[] = [];
  for (const strategy of ENGINE_STRATEGIES) {
    for (const counting of ['deferred', 'exact'] as const) {
      const request: number[] = [];
      const cpu: number[] = [];
      const after: number[] = [];
      const refine: number[] = [];
      for (let r = 0; r < COLD_REPEATS; r++) {
        const engine = new ProxyEngine({ strategy, defer: counting === 'deferred' ? undefined : false });
        let t = performance.now();
        const c0 = process.cpuUsage();
        const f = engine.onRequest(raw, {}, Date.now());
        request.push(performance.now() - t);
        const c = process.cpuUsage(c0);
        cpu.push((c.user + c.system) / 1000);
        if (f.sessionId === undefined || (strategy !== 'none' && !f.transformed))
          throw new Error(`cold build failed: ${f.failOpen ?? 'no session'}`);
        t = performance.now();
        engine.afterForward(f);
        after.push(performance.now() - t);
        t = performance.now();
        while (engine.refineStep());
        refine.push(performance.now() - t);
      }
      rows.push({
        strategy,
        messages: COLD_SIZE,
        bodyMB: raw.length / 1e6,
        counting,
        requestMs: median(request),
        requestCpuMs: median(cpu),
        afterMs: median(after),
        refineMs: median(refine),
      });
      process.stderr.write(`cold build ${strategy} (${counting}): ${median(request).toFixed(0)} ms\n`);
    }
  }
  return rows;
}

const ms = (x: number): string => x.toFixed(x < 10 ? 2 : 0);

export function formatProxyLatency(rows: readonly LatencyRow[]): string {
  return [
    '| proxy | messages | request MB | direct p50 / p99 ms | proxy p50 / p99 ms | added p50 / p99 ms | proxy request path p50 / p99 ms | first event direct / proxy p50 ms | first event added p99 ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.strategy} | ${r.messages} | ${r.bodyMB.toFixed(2)} | ${ms(r.directP50)} / ${ms(r.directP99)} | ${ms(r.proxyP50)} / ${ms(r.proxyP99)} | ${ms(r.addedP50)} / ${ms(r.addedP99)} | ${ms(r.requestPathP50)} / ${ms(r.requestPathP99)} | ${ms(r.ttfbDirectP50)} / ${ms(r.ttfbProxyP50)} | ${ms(r.ttfbAddedP99)} |`,
    ),
  ].join('\n');
}

export function formatColdBuild(rows: readonly ColdRow[]): string {
  return [
    '| strategy | messages | request MB | token counts on the request path | request path ms (CPU ms) | inspector view after forwarding ms | making counts exact, in the background ms |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.strategy} | ${r.messages} | ${r.bodyMB.toFixed(2)} | ${r.counting === 'deferred' ? 'estimated from characters, refined later' : 'exact (js-tiktoken)'} | ${ms(r.requestMs)} (${ms(r.requestCpuMs)}) | ${ms(r.afterMs)} | ${r.counting === 'deferred' ? ms(r.refineMs) : '–'} |`,
    ),
  ].join('\n');
}

/** The bench-results markdown of this section. */
export async function proxySection(): Promise<string> {
  const cold = benchColdBuild();
  const latency = await benchProxyLatency();
  process.stdout.write(`${formatColdBuild(cold)}\n\n${formatProxyLatency(latency)}\n`);
  return [
    '## Proxy',
    '',
    `A proxy meeting a long session for the first time (restarted mid-session), median of ${COLD_REPEATS}:`,
    '',
    formatColdBuild(cold),
    '',
    "With `none` the client's bytes go upstream before any of this runs (the request path is the read and the forward); its numbers are the recording done right after.",
    '',
    `Added latency per request: the real SDK to the local test server (dist/dev-server.js) directly and through the proxy (dist/cli.js proxy, journal on), three processes, alternating, ${LATENCY_CALLS} calls per row on a session growing by one tool round per call. The request path column is ProxyEngine.onRequest alone, in process (for none it runs after the bytes were forwarded). The first row per size is a plain Node pass-through proxy (request and response piped, nothing parsed): the floor of one more HTTP hop on this machine; what none adds beyond it is Trimline's own.`,
    '',
    formatProxyLatency(latency),
    '',
  ].join('\n');
}
