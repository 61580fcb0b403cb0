/**
 * `trimline proxy` (the built CLI, its own process) with a bench-only preload: on SIGUSR2 the
 * process runs a full GC and prints its memory after it, and the longest time its event loop
 * was blocked since the last probe (perf_hooks.monitorEventLoopDelay): the most any other
 * client's call can have waited on the proxy itself, whatever the upstream did.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { startCliProxy, type CliProxy } from '../integration/proxy-cli';

const PRELOAD = `const { monitorEventLoopDelay } = require('node:perf_hooks');
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
process.on('SIGUSR2', () => {
  const maxMs = loop.max / 1e6; const p99Ms = loop.percentile(99) / 1e6; loop.reset();
  global.gc(); const m = process.memoryUsage();
  process.stderr.write('bench-probe ' + m.rss + ' ' + m.heapUsed + ' ' + maxMs + ' ' + p99Ms + '\\n');
});`;

export interface Probe {
  /** Resident memory and heap right after a full GC, MB. */
  rssAfterGcMB: number;
  heapAfterGcMB: number;
  /** Longest event-loop block since the last probe (ms), and the 99th percentile of the loop's delay. */
  loopMaxMs: number;
  loopP99Ms: number;
}

export interface ProbedProxy {
  readonly proxy: CliProxy;
  alive(): boolean;
  probe(): Promise<Probe>;
  stop(): Promise<void>;
}

const NAN = Number.NaN;
const none: Probe = { rssAfterGcMB: NAN, heapAfterGcMB: NAN, loopMaxMs: NAN, loopP99Ms: NAN };

export async function startProbedProxy(args: readonly string[]): Promise<ProbedProxy> {
  const preload = join(mkdtempSync(join(tmpdir(), 'trimline-bench-probe-')), 'probe.cjs');
  writeFileSync(preload, PRELOAD);
  const proxy = await startCliProxy(args, resolve('dist/cli.js'), ['--expose-gc', '--require', preload]);
  const alive = (): boolean => proxy.child.exitCode === null && proxy.child.signalCode === null;
  return {
    proxy,
    alive,
    probe: async () => {
      if (!alive()) return none;
      const from = proxy.stderr().length;
      process.kill(proxy.pid, 'SIGUSR2');
      for (let i = 0; i < 100; i++) {
        const m = /bench-probe (\d+) (\d+) ([\d.]+) ([\d.]+)/.exec(proxy.stderr().slice(from));
        const [rss, heap, loopMaxMs, loopP99Ms] = (m ?? []).slice(1).map(Number);
        if (m) return { rssAfterGcMB: rss / 1e6, heapAfterGcMB: heap / 1e6, loopMaxMs, loopP99Ms };
        await new Promise((r) => setTimeout(r, 50));
      }
      return none;
    },
    stop: async () => {
      await proxy.stop();
      rmSync(dirname(preload), { recursive: true, force: true });
    },
  };
}
