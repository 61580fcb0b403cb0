/**
 * Soak (section `soak` of `npm run bench`): 10,000 calls over 200 sessions through one
 * `trimline proxy` (its own process, journal on, as the CLI runs it) to the local test server
 * (dist/dev-server.js), all on loopback. Sessions come in cohorts of 20 that run side by side
 * for 50 turns each (a day of terminal agents, one after another), so the proxy meets 200
 * sessions while its registry keeps 64: the rest are released and their journals closed.
 *
 * Every 1,000 calls another client sends one poisoned request (6 M same-class chars, which once
 * overflowed the token counter's stack) and one 5 MB tool result (issue 27).
 *
 * Reported at the start (after the first cohort) and at the end: whether the proxy lives, its
 * resident memory (also right after a full GC, which a bench-only preload runs: proxy-probe.ts),
 * open descriptors and lock files, and the added latency per call (p50/p99 of proxy minus
 * direct, the same body to both, alternating) over the last 25 turns of the first and of the
 * last cohort. Then the same cohorts through a ProxyEngine in this process, the heap measured
 * after a forced GC (RSS alone follows the collector's moods). Bounded: a fixed number of
 * calls, each with a timeout, and a deadline for the whole run after which it stops and
 * reports what it has.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ProxyEngine } from '../../src/core/proxy/proxy-engine';
import { fdCount, postMessages, rssMB } from '../integration/proxy-cli';
import { startProbedProxy } from './proxy-probe';
import { spawnUrl } from './proxy-bench';
import { bigBody, bigLog } from './proxy-session';

const SESSIONS = 200;
const CALLS = 10_000;
const COHORT = 20;
const TURNS = CALLS / SESSIONS;
/** Turns of a cohort from which calls are paired with a direct one (the latency windows). */
const PAIRED_FROM_TURN = TURNS / 2;
const CALL_TIMEOUT_MS = 30_000;
/** The whole run stops here, whatever it reached. */
const DEADLINE_MS = 15 * 60_000;
/** One poisoned request and one 5 MB tool result every this many calls (issue 27). */
const HOSTILE_EVERY = 1_000;
/** The test server answers 6 M chars (it counts 3.5 chars per token). */
const SERVER_WINDOW = 10_000_000;
const STRATEGY = 'default';
const MODEL = 'claude-sonnet-4-6';

export interface SoakSample {
  /** Calls through the proxy so far. */
  calls: number;
  sessions: number;
  rssMB: number;
  /** After a full GC in the proxy's process. */
  rssAfterGcMB: number;
  heapAfterGcMB: number;
  alive: boolean;
  fds: number;
  locks: number;
  journals: number;
  elapsedS: number;
}

export interface SoakWindow {
  label: string;
  calls: number;
  directP50: number;
  proxyP50: number;
  addedP50: number;
  addedP99: number;
}

/** The engine alone, in this process: heap after a full GC once every cohort is done. */
export interface HeapSample {
  sessions: number;
  calls: number;
  liveSessions: number;
  heapMB: number;
}

/** Turns per session of the in-process heap run (fewer than the HTTP run's: it is about state, not latency). */
const HEAP_TURNS = 20;

export interface SoakResult {
  strategy: string;
  calls: number;
  sessions: number;
  completed: boolean;
  failures: number;
  /** Poisoned requests and 5 MB tool results sent, and how many of them were not answered 200. */
  hostile: number;
  hostileFailures: number;
  samples: SoakSample[];
  windows: SoakWindow[];
  /** Empty when this process cannot force a GC (run with --expose-gc, as `npm run bench` does). */
  heap: HeapSample[];
  seconds: number;
}

export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : Number.NaN;
}

/** Turn `t` of a session: string content and block content alternate, as clients send both. */
function turn(id: number, t: number): { role: 'user' | 'assistant'; content: unknown }[] {
  const words = `session ${id} turn ${t}: ${'the quick brown fox jumps over the lazy dog '.repeat(4)}`;
  const user =
    t % 2
      ? { role: 'user' as const, content: [{ type: 'text', text: `asks ${words}` }] }
      : { role: 'user' as const, content: `asks ${words}` };
  return t === 0 ? [user] : [{ role: 'assistant', content: [{ type: 'text', text: `answers ${words}` }] }, user];
}

/**
 * The same cohorts through a ProxyEngine in this process (journal on), the heap measured after
 * a forced GC per cohort: what the proxy keeps must stop growing once its registry is full.
 */
function engineHeap(started: number, log: (s: string) => void): HeapSample[] {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return [];
  const journalDir = mkdtempSync(join(tmpdir(), 'trimline-bench-soak-heap-'));
  const engine = new ProxyEngine({ strategy: STRATEGY, journalDir });
  const out: HeapSample[] = [];
  let calls = 0;
  try {
    for (let c = 0; c < SESSIONS / COHORT && Date.now() - started < DEADLINE_MS; c++) {
      const histories = Array.from({ length: COHORT }, () => [] as unknown[]);
      for (let t = 0; t < HEAP_TURNS; t++) {
        for (let j = 0; j < COHORT; j++) {
          const id = c * COHORT + j;
          histories[j].push(...turn(id, t));
          const raw = Buffer.from(
            JSON.stringify({ model: MODEL, max_tokens: 64, system: 'You are a soak test.', messages: histories[j] }),
          );
          const f = engine.onRequest(raw, { 'x-claude-code-session-id': `heap-${id}` }, ++calls);
          engine.afterForward(f);
          if (f.sessionId !== undefined && f.callIndex !== undefined)
            engine.onResponse(f.sessionId, f.callIndex, { usage: { input_tokens: 100, output_tokens: 10 } });
          while (engine.refineStep());
        }
      }
      gc();
      out.push({
        sessions: (c + 1) * COHORT,
        calls,
        liveSessions: engine.liveSessions,
        heapMB: process.memoryUsage().heapUsed / 1e6,
      });
      log(
        `soak (engine heap): ${calls} calls, ${(c + 1) * COHORT} sessions: ${out[out.length - 1].heapMB.toFixed(1)} MB`,
      );
    }
  } finally {
    engine.close();
    rmSync(journalDir, { recursive: true, force: true });
  }
  return out;
}

export async function runSoak(log: (s: string) => void): Promise<SoakResult> {
  const started = Date.now();
  const server = await spawnUrl(
    [resolve('dist/dev-server.js'), '--port', '0', '--fallback', 'echo', '--context-window', String(SERVER_WINDOW)],
    /listening on (http:\/\/\S+)/,
  );
  const journalDir = mkdtempSync(join(tmpdir(), 'trimline-bench-soak-'));
  const probed = await startProbedProxy(['--upstream', server.url, '--strategy', STRATEGY, '--journal', journalDir]);
  const { proxy, alive } = probed;
  const poison = JSON.stringify({
    model: MODEL,
    max_tokens: 64,
    messages: [{ role: 'user', content: 'B'.repeat(6_000_000) }],
  });
  const bigText = bigLog(5);
  let hostile = 0;
  let hostileFailures = 0;
  const hostileCalls = async (n: number): Promise<void> => {
    for (const [key, body] of [
      [`soak-poison-${n}`, poison],
      [`soak-big-${n}`, bigBody(bigText, `soak-big-${n}`)],
    ]) {
      hostile++;
      const r = await postMessages(proxy.url, key, body, CALL_TIMEOUT_MS).catch(() => ({ status: 0 }));
      if (r.status !== 200) hostileFailures++;
    }
    log(`soak: ${calls} calls: poisoned request and 5 MB tool result sent, proxy ${alive() ? 'alive' : 'GONE'}`);
  };
  const samples: SoakSample[] = [];
  const windows: SoakWindow[] = [];
  let calls = 0;
  let failures = 0;
  const sample = async (sessions: number): Promise<void> => {
    const files = readdirSync(journalDir);
    const rss = alive() ? rssMB(proxy.pid) : Number.NaN;
    const fds = alive() ? fdCount(proxy.pid) : Number.NaN;
    const { rssAfterGcMB, heapAfterGcMB } = await probed.probe();
    samples.push({
      calls,
      sessions,
      rssMB: rss,
      rssAfterGcMB,
      heapAfterGcMB,
      alive: alive(),
      fds,
      locks: files.filter((f) => f.endsWith('.lock')).length,
      journals: files.filter((f) => f.endsWith('.jsonl')).length,
      elapsedS: (Date.now() - started) / 1000,
    });
    const s = samples[samples.length - 1];
    log(
      `soak: ${s.calls} calls, ${s.sessions} sessions: ${s.alive ? 'alive' : 'GONE'}, RSS ` +
        `${s.rssMB.toFixed(0)} MB (${s.rssAfterGcMB.toFixed(0)} after GC, heap ${s.heapAfterGcMB.toFixed(0)}), ` +
        `${s.fds} fds, ${s.locks} locks`,
    );
  };
  const call = async (url: string, key: string, body: string): Promise<number> => {
    const t = performance.now();
    const r = await postMessages(url, key, body, CALL_TIMEOUT_MS);
    if (r.status !== 200) failures++;
    return performance.now() - t;
  };
  let completed = true;
  try {
    await sample(0);
    for (let c = 0; c < SESSIONS / COHORT; c++) {
      const measured = c === 0 || c === SESSIONS / COHORT - 1;
      const direct: number[] = [];
      const viaProxy: number[] = [];
      const histories = Array.from({ length: COHORT }, () => [] as unknown[]);
      for (let t = 0; t < TURNS && completed; t++) {
        for (let j = 0; j < COHORT; j++) {
          if (Date.now() - started > DEADLINE_MS) {
            completed = false;
            break;
          }
          const id = c * COHORT + j;
          histories[j].push(...turn(id, t));
          const body = JSON.stringify({
            model: MODEL,
            max_tokens: 64,
            stream: true,
            system: 'You are a soak test.',
            messages: histories[j],
          });
          const key = `soak-${id}`;
          if (measured && t >= PAIRED_FROM_TURN) {
            // Alternate which path meets the server first.
            if ((t + j) % 2 === 0) {
              direct.push(await call(server.url, key, body));
              viaProxy.push(await call(proxy.url, key, body));
            } else {
              viaProxy.push(await call(proxy.url, key, body));
              direct.push(await call(server.url, key, body));
            }
          } else {
            await call(proxy.url, key, body);
          }
          calls++;
          if (calls % HOSTILE_EVERY === 0) await hostileCalls(calls / HOSTILE_EVERY);
        }
      }
      if (measured && direct.length) {
        const added = viaProxy.map((p, i) => p - direct[i]);
        windows.push({
          label: c === 0 ? 'start (first cohort)' : 'end (last cohort)',
          calls: added.length,
          directP50: quantile(direct, 0.5),
          proxyP50: quantile(viaProxy, 0.5),
          addedP50: quantile(added, 0.5),
          addedP99: quantile(added, 0.99),
        });
      }
      await sample((c + 1) * COHORT);
      if (!completed) break;
    }
  } finally {
    await probed.stop();
    server.child.kill();
    rmSync(journalDir, { recursive: true, force: true });
  }
  const heap = engineHeap(started, log);
  return {
    strategy: STRATEGY,
    calls,
    sessions: SESSIONS,
    completed,
    failures,
    hostile,
    hostileFailures,
    samples,
    windows,
    heap,
    seconds: (Date.now() - started) / 1000,
  };
}

const f1 = (x: number): string => x.toFixed(1);
const f2 = (x: number): string => x.toFixed(2);

export function formatSoak(r: SoakResult): string[] {
  const first = r.samples.find((s) => s.calls > 0) ?? r.samples[0];
  const last = r.samples[r.samples.length - 1];
  return [
    '## Soak',
    '',
    `${r.calls.toLocaleString('en-US')} calls over ${r.sessions} sessions (cohorts of ${COHORT} side by side ` +
      `for ${TURNS} turns, string and block content alternating, streamed) through one \`trimline proxy ` +
      `--strategy ${r.strategy}\` (its own process, journal on) to the local test server, in ` +
      `${f1(r.seconds)} s${r.completed ? '' : ' (stopped at the deadline: partial)'}; ${r.failures} calls ` +
      `failed. Every ${HOSTILE_EVERY.toLocaleString('en-US')} calls another client sent a poisoned ` +
      `request (6 M same-class chars) and a 5 MB tool result: ${r.hostile} sent, ${r.hostileFailures} ` +
      `not answered 200. The registry keeps 64 sessions and at most 24 journals hold a descriptor: ` +
      `the other sessions were released and their journals closed.`,
    '',
    '| after calls | sessions met | proxy alive | RSS MB | RSS after GC MB | heap after GC MB | open fds | ' +
      'lock files | journals |',
    '|---|---|---|---|---|---|---|---|---|',
    ...r.samples.map(
      (s) =>
        `| ${s.calls} | ${s.sessions} | ${s.alive ? 'yes' : 'no'} | ${f1(s.rssMB)} | ${f1(s.rssAfterGcMB)} | ` +
        `${f1(s.heapAfterGcMB)} | ${s.fds} | ${s.locks} | ${s.journals} |`,
    ),
    '',
    `Start → end: RSS ${f1(first.rssMB)} → ${f1(last.rssMB)} MB (after GC ${f1(first.rssAfterGcMB)} → ` +
      `${f1(last.rssAfterGcMB)}, heap ${f1(first.heapAfterGcMB)} → ${f1(last.heapAfterGcMB)}), descriptors ` +
      `${first.fds} → ${last.fds}, lock files ${first.locks} → ${last.locks}.`,
    '',
    `Added latency per call (the same body directly and through the proxy, alternating), over turns ` +
      `${PAIRED_FROM_TURN + 1}–${TURNS} of the first and of the last cohort:`,
    '',
    '| window | paired calls | direct p50 ms | proxy p50 ms | added p50 ms | added p99 ms |',
    '|---|---|---|---|---|---|',
    ...r.windows.map(
      (w) =>
        `| ${w.label} | ${w.calls} | ${f2(w.directP50)} | ${f2(w.proxyP50)} | ${f2(w.addedP50)} | ${f2(w.addedP99)} |`,
    ),
    '',
    ...(r.heap.length
      ? [
          `RSS follows V8's collector, so what the proxy keeps is measured apart: the same cohorts ` +
            `(${HEAP_TURNS} turns each) through a ProxyEngine in the bench process, journal on, heap used ` +
            `after a forced GC per cohort:`,
          '',
          '| sessions met | calls | live sessions | heap MB after GC |',
          '|---|---|---|---|',
          ...r.heap.map((h) => `| ${h.sessions} | ${h.calls} | ${h.liveSessions} | ${f1(h.heapMB)} |`),
          '',
        ]
      : []),
  ];
}
