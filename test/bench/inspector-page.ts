/**
 * Live inspector updates in the page (not a test): the built inspector in Debian's
 * Chromium, fed by the standalone server from a live 10,000-block proxied session
 * (test/browser/live-session.ts): agent calls (three blocks each, usage that
 * recalibrates the token counts), then a pin. Per update, as the page measures it:
 * - applyDelta alone (`trimline:apply`);
 * - apply + render, the inspector's own handling of the message (`trimline:delta`);
 * - the whole message task: parse and validate, apply, render, then the style and
 *   layout it leaves for the frame (forced at the end of the task, so none is hidden).
 * The first update recalibrates every row; the others are the steady state.
 */
import type { Browser } from 'playwright-core';
import { launchBrowser, openInspector } from '../browser/helpers';
import { serveLive } from '../browser/live-session';

const BLOCKS = 10_000;
/** Agent calls after the page has its snapshot (the first one recalibrates every row). */
const CALLS = 12;
/** Fresh sessions and pages measured (the machine may be shared: the table shows medians, the summary every sample). */
const REPEATS = 3;

export interface PageUpdate {
  update: string;
  bytes: number;
  applyMs: number;
  applyRenderMs: number;
  taskMs: number;
}

/** In the page: every server-sent message is timed as one task, up to the layout it leaves. */
function timeMessages(): void {
  const w = window as unknown as { benchTasks: { bytes: number; ms: number }[] };
  w.benchTasks = [];
  const desc = Object.getOwnPropertyDescriptor(EventSource.prototype, 'onmessage');
  Object.defineProperty(EventSource.prototype, 'onmessage', {
    configurable: true,
    set(this: EventSource, fn: (ev: MessageEvent<string>) => void) {
      desc?.set?.call(this, (ev: MessageEvent<string>) => {
        const t = performance.now();
        fn.call(this, ev);
        void document.documentElement.getBoundingClientRect();
        w.benchTasks.push({ bytes: ev.data.length, ms: performance.now() - t });
      });
    },
    get(this: EventSource) {
      return desc?.get?.call(this) as unknown;
    },
  });
}

async function run(browser: Browser): Promise<PageUpdate[]> {
  const served = await serveLive(BLOCKS);
  const { live, server } = served;
  try {
    const w = await openInspector(browser, server.pageUrl, {
      height: 900,
      beforeLoad: async (page) => {
        await page.addInitScript(timeMessages);
      },
    });
    const { page } = w;
    const deltas = (): Promise<number> => page.evaluate(() => performance.getEntriesByName('trimline:delta').length);
    const settle = async (n: number): Promise<void> => {
      await page.waitForFunction((k) => performance.getEntriesByName('trimline:delta').length >= k, n, {
        timeout: 60_000,
      });
      // A frame between updates, as live updates arrive (seconds apart).
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
    };
    const names: string[] = [];
    for (let i = 1; i <= CALLS; i++) {
      const before = await deltas();
      live.step();
      server.broadcast();
      await settle(before + 1);
      names.push(`call ${i}`);
    }
    const target = live.inspector
      .snapshot()!
      .rows.filter((r) => r.kind === 'tool_result')
      .at(-2)!;
    const before = await deltas();
    live.inspector.handle({ op: 'pin', blockId: target.blockId });
    server.broadcast();
    await settle(before + 1);
    names.push('pin');
    const m = await page.evaluate(() => ({
      apply: performance.getEntriesByName('trimline:apply').map((e) => e.duration),
      delta: performance.getEntriesByName('trimline:delta').map((e) => e.duration),
      // The first message is the whole snapshot.
      tasks: (window as unknown as { benchTasks: { bytes: number; ms: number }[] }).benchTasks.slice(1),
    }));
    if (w.errors.length) throw new Error(`page errors: ${w.errors.join('; ')}`);
    if (m.delta.length !== names.length || m.tasks.length !== names.length)
      throw new Error(
        `expected ${names.length} deltas, the page measured ${m.delta.length} (${m.tasks.length} messages)`,
      );
    await page.close();
    return names.map((update, i) => ({
      update,
      bytes: m.tasks[i].bytes,
      applyMs: m.apply[i],
      applyRenderMs: m.delta[i],
      taskMs: m.tasks[i].ms,
    }));
  } finally {
    await served.close();
  }
}

/** REPEATS runs of the same updates, each in a fresh session and page. */
export async function benchInspectorPage(): Promise<PageUpdate[][]> {
  const browser = await launchBrowser();
  try {
    const runs: PageUpdate[][] = [];
    for (let i = 0; i < REPEATS; i++) runs.push(await run(browser));
    return runs;
  } finally {
    await browser.close();
  }
}

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

type Measure = 'applyMs' | 'applyRenderMs' | 'taskMs';
const MEASURES: readonly Measure[] = ['applyMs', 'applyRenderMs', 'taskMs'];

export function formatInspectorPage(runs: readonly PageUpdate[][]): string {
  const ms = (x: number): string => `${x.toFixed(1)} ms`;
  const median = (xs: readonly number[]): number => quantile(xs, 0.5);
  const first = runs.map((r) => r[0]);
  const steady = runs.flatMap((r) => r.slice(1));
  const summary = (label: string, xs: readonly PageUpdate[]): string =>
    `| **${label}** (p50 / max of ${xs.length}) | | ${MEASURES.map((k) => `${ms(median(xs.map((r) => r[k])))} / ${ms(Math.max(...xs.map((r) => r[k])))}`).join(' | ')} |`;
  return [
    `| update (median of ${runs.length} runs) | message | applyDelta | apply + render | whole task (parse, apply, render, style + layout) |`,
    '|---|---|---|---|---|',
    ...runs[0].map(
      (r, i) =>
        `| ${r.update} | ${(r.bytes / 1024).toFixed(1)} KB | ${MEASURES.map((k) => ms(median(runs.map((run) => run[i][k])))).join(' | ')} |`,
    ),
    summary('first update', first),
    summary('steady updates', steady),
  ].join('\n');
}

/** The bench report's section (Markdown lines); skipped without Chromium. */
export async function inspectorPageSection(): Promise<string[]> {
  let rows: PageUpdate[][];
  try {
    rows = await benchInspectorPage();
  } catch (e) {
    process.stderr.write(`inspector page bench skipped: ${(e as Error).message}\n`);
    return [];
  }
  const table = formatInspectorPage(rows);
  process.stdout.write(`${table}\n`);
  return [
    '### In the page (Chromium)',
    '',
    `The same kind of session at ${BLOCKS.toLocaleString('en-US')} blocks, served to the built inspector in Chromium (test/bench/inspector-page.ts): ${CALLS} agent calls, then a pin; ${REPEATS} runs, each a fresh session and page. The page's own measures: applyDelta, and apply + render (the grid patched and its visible rows re-bound); the whole task adds parsing, validation and the style and layout the update leaves (forced at the end of the task). The first call recalibrates every row; steady is every update after it. Goal (issue 8): an update applies and renders in under 16 ms.`,
    '',
    table,
    '',
  ];
}
