/**
 * A live 10,000-block proxied session through the standalone server: each new call and
 * each pin reaches the page as a snapshot delta (not a whole snapshot), the page shows
 * the change, and never has to ask for a whole snapshot again.
 */
import { describe, expect, it } from 'vitest';
import { openInspector, ROW } from './helpers';
import { listenEvents } from '../unit/inspect/helpers';
import { useLiveSession } from './live-suite';

const BLOCKS = 10_000;
/** The goal of issue 8: an update of a 10,000-block session stays under this. */
const MAX_UPDATE_BYTES = 64 * 1024;

describe('live inspector deltas', () => {
  const suite = useLiveSession(BLOCKS);

  it('sends each change of a 10,000-block session as a small delta, and the page shows it', async () => {
    const { browser, live, server } = suite;
    const first = live.inspector.snapshot()!;
    expect(first.rows.length).toBeGreaterThanOrEqual(BLOCKS);
    const stream = await listenEvents(server);
    const w = await openInspector(browser, server.pageUrl, { height: 900 });
    const { page } = w;
    const readies: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/request') && /"type":"ready"/.test(r.postData() ?? '')) readies.push(r.url());
    });
    const count = (n: number): string => `${n.toLocaleString('en-US')} blocks`;
    expect(await page.textContent('.count')).toBe(count(first.rows.length));

    // The agent's next calls: three new blocks each, the cached prefix moves, tokens recalibrate.
    const sizes: number[] = [];
    for (let i = 0; i < 3; i++) {
      live.step();
      const before = stream.messages.length;
      server.broadcast();
      const snap = live.inspector.snapshot()!;
      await page.waitForFunction(
        (text) => document.querySelector('.count')?.textContent === text,
        count(snap.rows.length),
        { timeout: 30_000 },
      );
      await expect.poll(() => stream.messages.length, { timeout: 30_000 }).toBeGreaterThan(before);
      const m = stream.messages.at(-1)!;
      // The listener's first push is whole (it had nothing to build on); the page's was its `ready`.
      if (i > 0) sizes.push(m.bytes);
      if (i > 0) expect(m.msg.type).toBe('snapshotDelta');
      if (m.msg.type === 'snapshotDelta')
        expect(m.msg.delta.added.flatMap((r) => r.rows.map((x) => x.blockId))).toEqual(
          snap.rows.slice(-3).map((r) => r.blockId),
        );
    }
    // The newest block is at the bottom of the grid, with its preview.
    const last = live.inspector.snapshot()!.rows.at(-1)!;
    await page.focus('.grid-spacer .grid-row[tabindex="0"]');
    await page.keyboard.press('End');
    await page.waitForSelector(ROW(last.blockId));
    expect(await page.textContent(`${ROW(last.blockId)} .preview`)).toBe(
      last.preview.replace(/\s+/g, ' ').trim().slice(0, 200),
    );

    // A pin from the page: the server pushes the change, the row says pinned.
    const target = live.inspector
      .snapshot()!
      .rows.filter((r) => r.kind === 'tool_result')
      .at(-2)!;
    await page.keyboard.press('ArrowUp');
    await page.waitForSelector(ROW(target.blockId));
    const before = stream.messages.length;
    await page.click(`${ROW(target.blockId)} .row-btn.pin`);
    await page.waitForSelector(`${ROW(target.blockId)}.state-pinned`, { timeout: 30_000 });
    await expect.poll(() => stream.messages.length, { timeout: 30_000 }).toBeGreaterThan(before);
    const pin = stream.messages.at(-1)!;
    expect(pin.msg.type).toBe('snapshotDelta');
    if (pin.msg.type === 'snapshotDelta') expect(pin.msg.delta.changed.map((r) => r.blockId)).toContain(target.blockId);
    sizes.push(pin.bytes);

    // Only deltas after the first snapshot, each small; the page never had to ask for a whole snapshot again.
    const [head, ...rest] = stream.messages;
    expect(head.msg.type).toBe('snapshot');
    expect(rest.every((m) => m.msg.type === 'snapshotDelta')).toBe(true);
    const applied = await page.evaluate(() => performance.getEntriesByName('trimline:delta').map((e) => e.duration));
    const applyOnly = await page.evaluate(() => performance.getEntriesByName('trimline:apply').map((e) => e.duration));
    const whole = await page.evaluate(() => performance.getEntriesByName('trimline:snapshot').map((e) => e.duration));
    console.log(
      `${first.rows.length}-block live session: whole snapshot ${head.bytes} bytes (page render ${whole.map((d) => d.toFixed(1)).join(', ')} ms, after parsing); updates ${sizes.join(', ')} bytes; ` +
        `page apply + render per delta ${applied.map((d) => d.toFixed(1)).join(', ')} ms (of which applyDelta ${applyOnly.map((d) => d.toFixed(1)).join(', ')} ms)`,
    );
    for (const b of sizes) expect(b).toBeLessThan(MAX_UPDATE_BYTES);
    expect(readies).toEqual([]);
    expect(applied.length).toBeGreaterThanOrEqual(4);
    expect(w.errors).toEqual([]);
    stream.close();
    await page.close();
  });
});
