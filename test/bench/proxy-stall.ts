/**
 * One big request must not stall the proxy's other clients (issue 27; section `stall` of
 * `npm run bench`). A bystander session (Claude-Code-shaped, 100 messages, one tool round per
 * call) calls the local test server directly and through `trimline proxy --strategy default`
 * (its own process, journal on) at the same moment, while another client sends one big request:
 * a 5 MB tool result, a 20 MB one, then 6 M same-class chars (the request that once overflowed
 * the token counter's stack). The bystander's added latency (proxy minus direct, paired) is measured
 * before, and from the big request's start until its background counting had time to end.
 * Bounded: each call has a timeout, each window a fixed length.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { postMessages } from '../integration/proxy-cli';
import { startProbedProxy } from './proxy-probe';
import { spawnUrl } from './proxy-bench';
import { bigBody, bigLog, ccBody, ccMessages, roundAssistant, roundResults } from './proxy-session';
import { quantile } from './soak';

const BYSTANDER_MESSAGES = 100;
/** The big tool results sent while the bystander calls (MB). */
const BIG_MB = [5, 20];
const BASELINE_CALLS = 30;
/** After the big call was answered, its counting goes on in the background: measure this long more. */
const AFTER_MS = 8_000;
const CALL_TIMEOUT_MS = 60_000;
const SERVER_WINDOW = 10_000_000;

export interface StallRow {
  label: string;
  bigMB: number;
  /** The big call itself, through the proxy. */
  bigCallMs: number;
  calls: number;
  addedP50: number;
  addedP99: number;
  addedMax: number;
  /** The longest the proxy's event loop was blocked in the window: what any call could wait on the proxy itself. */
  loopMaxMs: number;
  loopP99Ms: number;
  alive: boolean;
}

export async function runStall(log: (s: string) => void): Promise<StallRow[]> {
  const serverArgs = ['--port', '0', '--fallback', 'echo', '--context-window', String(SERVER_WINDOW)];
  const server = await spawnUrl([resolve('dist/dev-server.js'), ...serverArgs], /listening on (http:\/\/\S+)/);
  const journalDir = mkdtempSync(join(tmpdir(), 'trimline-bench-stall-'));
  const probed = await startProbedProxy(['--upstream', server.url, '--strategy', 'default', '--journal', journalDir]);
  const { proxy } = probed;
  const messages = ccMessages(BYSTANDER_MESSAGES);
  let k = 0;
  /**
   * One bystander turn, directly and through the proxy at the same moment: the added ms. Sent
   * together, both meet the test server in the same state (it is busy with the big request
   * too), so the difference is the proxy's own.
   */
  const paired = async (): Promise<number> => {
    messages.push(roundAssistant(50_000 + k), roundResults(50_000 + k));
    k++;
    const body = JSON.stringify(ccBody(messages, 'stall-bystander'));
    const timed = async (url: string): Promise<number> => {
      const t = performance.now();
      await postMessages(url, 'stall-bystander', body, CALL_TIMEOUT_MS);
      return performance.now() - t;
    };
    const [direct, viaProxy] = await Promise.all([timed(server.url), timed(proxy.url)]);
    return viaProxy - direct;
  };
  const rows: StallRow[] = [];
  const window = async (label: string, bigMB: number, big?: string): Promise<void> => {
    const added: number[] = [];
    let bigCallMs = Number.NaN;
    await probed.probe();
    if (big === undefined) for (let i = 0; i < BASELINE_CALLS; i++) added.push(await paired());
    else {
      const t = performance.now();
      let done = false;
      const call = postMessages(proxy.url, 'stall-big', big, CALL_TIMEOUT_MS).finally(() => {
        bigCallMs = performance.now() - t;
        done = true;
      });
      let until = Infinity;
      while (performance.now() < until) {
        added.push(await paired());
        if (done && until === Infinity) until = performance.now() + AFTER_MS;
      }
      await call;
    }
    const { loopMaxMs, loopP99Ms } = await probed.probe();
    const [addedP50, addedP99, addedMax] = [quantile(added, 0.5), quantile(added, 0.99), Math.max(...added)];
    const calls = added.length;
    const alive = probed.alive();
    rows.push({ label, bigMB, bigCallMs, calls, addedP50, addedP99, addedMax, loopMaxMs, loopP99Ms, alive });
    log(
      `stall: ${label}: ${added.length} paired calls, added p50 ${f1(addedP50)} ms, p99 ${f1(addedP99)} ms, ` +
        `max ${f1(addedMax)} ms; the proxy's loop blocked at most ${f1(loopMaxMs)} ms`,
    );
  };
  try {
    for (let i = 0; i < 10; i++) await paired();
    await postMessages(proxy.url, 'stall-big', JSON.stringify(ccBody(ccMessages(20), 'stall-big')), CALL_TIMEOUT_MS);
    await window('no other client (baseline)', 0);
    for (const mb of BIG_MB) {
      const big = bigBody(bigLog(mb), `stall-big-${mb}`);
      await window(`another client sends a ${mb} MB tool result`, big.length / 1e6, big);
    }
    const poison = bigBody('B'.repeat(6_000_000));
    await window('another client sends 6 M same-class chars', poison.length / 1e6, poison);
  } finally {
    await probed.stop();
    server.child.kill();
    rmSync(journalDir, { recursive: true, force: true });
  }
  return rows;
}

const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '–');

export function formatStall(rows: readonly StallRow[]): string[] {
  return [
    '## One big request and the other clients',
    '',
    `A bystander session (${BYSTANDER_MESSAGES} messages, one tool round per call) calls the local test server ` +
      'directly and through `trimline proxy --strategy default` (its own process, journal on), both at the same ' +
      "moment; the added latency is proxy minus direct per pair. While another client's big request is in flight " +
      `and for ${AFTER_MS / 1000} s after its answer (its token counts are made exact in the background meanwhile). ` +
      'A paired call that meets the test server while it reads the big request waits for the upstream too; the ' +
      "proxy's own share is the longest block of its event loop (perf_hooks, bench-only preload: proxy-probe.ts):",
    '',
    '| while | big body MB | big call ms | paired calls | added p50 ms | added p99 ms | added max ms ' +
      '| proxy loop blocked max ms | loop delay p99 ms | proxy alive |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows
      .map((r) =>
        [
          r.label,
          f1(r.bigMB),
          f1(r.bigCallMs),
          r.calls,
          f1(r.addedP50),
          f1(r.addedP99),
          f1(r.addedMax),
          f1(r.loopMaxMs),
        ]
          .concat([f1(r.loopP99Ms), r.alive ? 'yes' : 'no'])
          .join(' | '),
      )
      .map((row) => `| ${row} |`),
    '',
  ];
}
