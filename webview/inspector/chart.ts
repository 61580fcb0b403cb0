/**
 * Input tokens per call: what was sent, what of it was read from the cache, and what
 * would have been sent untrimmed, plus the next request. An SVG built with DOM APIs,
 * redrawn at the container's width; a pointer readout names the call under the cursor.
 */
import type { CallPoint, InspectorSnapshot } from '../../src/protocol';
import { clear, h, setText, svg } from '../shared/dom';
import { fmtTokens, fmtUsd } from '../shared/format';
import { isRealMiss, verdictLine, verdictOf } from './verdict-view';

const HEIGHT = 132;
const PAD = { left: 44, right: 10, top: 10, bottom: 18 };

export class CallChart {
  readonly el: HTMLElement;
  private readonly plot: SVGSVGElement;
  private readonly readout: HTMLElement;
  private points: CallPoint[] = [];
  private next?: CallPoint;
  private width = 600;

  /** `selectCall`: a miss mark was activated (click, Enter or Space): show that call's diff. */
  constructor(private readonly selectCall?: (call: number) => void) {
    // A group, not an image: the miss marks inside it are focusable.
    this.plot = svg('svg', { class: 'chart-svg', height: HEIGHT, role: 'group' });
    this.readout = h('div', { class: 'chart-readout', 'aria-hidden': 'true' });
    const legend = h(
      'div',
      { class: 'chart-legend' },
      h('span', { class: 'key k-untrimmed' }, 'untrimmed'),
      h('span', { class: 'key k-sent' }, 'sent'),
      h('span', { class: 'key k-cached' }, 'read from cache'),
      h('span', { class: 'key k-next' }, 'next request'),
    );
    this.el = h(
      'figure',
      { class: 'chart' },
      h('figcaption', {}, h('span', { class: 'chart-title' }, 'Input tokens per call'), legend),
      this.plot,
      this.readout,
    );
    new ResizeObserver(() => {
      const w = Math.floor(this.el.clientWidth);
      if (w > 0 && w !== this.width) {
        this.width = w;
        this.draw();
      }
    }).observe(this.el);
    this.plot.addEventListener('pointermove', (e) => this.hover(e));
    this.plot.addEventListener('pointerleave', () => setText(this.readout, ''));
  }

  update(s: InspectorSnapshot): void {
    this.points = s.calls;
    this.next = {
      call: s.callIndex,
      sent: s.totals.sentTokens,
      cached: s.cache.nextCachedTokens,
      untrimmed: s.totals.untrimmedTokens,
      cost: s.cost.nextRequest,
    };
    this.draw();
  }

  private all(): CallPoint[] {
    return this.next ? [...this.points, this.next] : this.points;
  }

  private scales(): { x: (i: number) => number; y: (v: number) => number; max: number } {
    const pts = this.all();
    const max = Math.max(1, ...pts.map((p) => Math.max(p.sent, p.untrimmed)));
    const w = this.width - PAD.left - PAD.right;
    const hgt = HEIGHT - PAD.top - PAD.bottom;
    const n = Math.max(1, pts.length - 1);
    return { x: (i) => PAD.left + (w * i) / n, y: (v) => PAD.top + hgt - (hgt * v) / max, max };
  }

  /** An area under `key` for the recorded calls. */
  private area(key: 'sent' | 'cached', cls: string): SVGPathElement | undefined {
    const { x, y } = this.scales();
    const pts = this.points;
    if (!pts.length) return undefined;
    const top = pts.map((p, i) => `${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' L');
    const d = `M${x(0).toFixed(1)},${y(0)} L${top} L${x(pts.length - 1).toFixed(1)},${y(0)} Z`;
    return svg('path', { d, class: cls });
  }

  private draw(): void {
    clear(this.plot);
    this.plot.setAttribute('width', String(this.width));
    this.plot.setAttribute('viewBox', `0 0 ${this.width} ${HEIGHT}`);
    const pts = this.all();
    const { x, y, max } = this.scales();
    const last = this.points.at(-1);
    const misses = this.points.filter((p) => isRealMiss(verdictOf(p))).length;
    this.plot.setAttribute(
      'aria-label',
      last
        ? `Input tokens over ${this.points.length} calls; last call sent ${last.sent} tokens, ${last.cached} from ` +
            `the cache, ${last.untrimmed} untrimmed${misses ? `; ${misses} calls missed the cache (marked)` : ''}`
        : 'No calls recorded yet',
    );
    this.plot.append(svg('title', {}, this.plot.getAttribute('aria-label') ?? ''));
    for (const f of [0, 0.5, 1]) {
      const yy = y(max * f);
      this.plot.append(svg('line', { x1: PAD.left, x2: this.width - PAD.right, y1: yy, y2: yy, class: 'grid-line' }));
      this.plot.append(
        svg('text', { x: PAD.left - 6, y: yy + 3, class: 'axis', 'text-anchor': 'end' }, fmtTokens(max * f)),
      );
    }
    const sent = this.area('sent', 'series-sent');
    const cached = this.area('cached', 'series-cached');
    if (sent) this.plot.append(sent);
    if (cached) this.plot.append(cached);
    if (pts.length > 1)
      this.plot.append(
        svg('polyline', {
          points: pts.map((p, i) => `${x(i).toFixed(1)},${y(p.untrimmed).toFixed(1)}`).join(' '),
          class: 'series-untrimmed',
        }),
      );
    if (this.next) {
      const i = pts.length - 1;
      this.plot.append(svg('circle', { cx: x(i), cy: y(this.next.sent), r: 4, class: 'series-next' }));
    }
    this.missMarks(x);
    // Calls by their numbers (a later epoch of a proxied session starts where the one before it ended).
    this.plot.append(svg('text', { x: PAD.left, y: HEIGHT - 4, class: 'axis' }, `call ${pts[0]?.call ?? 0}`));
    const end = this.next ? `next (${this.next.call})` : `call ${pts.at(-1)?.call ?? 0}`;
    const at = { x: this.width - PAD.right, y: HEIGHT - 4, class: 'axis', 'text-anchor': 'end' };
    this.plot.append(svg('text', at, end));
  }

  /** A mark above every call that missed the cache: its reason as the title, focusable, opens the call's diff. */
  private missMarks(x: (i: number) => number): void {
    this.points.forEach((p, i) => {
      const v = verdictOf(p);
      if (!isRealMiss(v)) return;
      const cx = x(i);
      const label = `Call ${p.call}: ${verdictLine(v)}`;
      const mark = svg('path', {
        d:
          `M${(cx - 5).toFixed(1)},${PAD.top - 8} L${(cx + 5).toFixed(1)},${PAD.top - 8} ` +
          `L${cx.toFixed(1)},${PAD.top} Z`,
        class: 'miss-mark',
        tabindex: 0,
        role: 'button',
        'aria-label': label,
      });
      mark.append(svg('title', {}, label));
      const open = (): void => this.selectCall?.(p.call);
      mark.addEventListener('click', open);
      mark.addEventListener('keydown', (e) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        open();
      });
      mark.addEventListener('focus', () => setText(this.readout, label));
      mark.addEventListener('blur', () => setText(this.readout, ''));
      this.plot.append(mark);
    });
  }

  private hover(e: PointerEvent): void {
    const pts = this.all();
    if (!pts.length) return;
    const r = this.plot.getBoundingClientRect();
    const w = this.width - PAD.left - PAD.right;
    const i = Math.max(
      0,
      Math.min(pts.length - 1, Math.round(((e.clientX - r.left - PAD.left) / w) * Math.max(1, pts.length - 1))),
    );
    const p = pts[i];
    const name = this.next && i === pts.length - 1 ? `next request (${p.call})` : `call ${p.call}`;
    const v = verdictOf(p);
    const why = isRealMiss(v) ? ` · ${verdictLine(v)}` : '';
    setText(
      this.readout,
      `${name}: ${fmtTokens(p.sent)} sent, ${fmtTokens(p.cached)} cached, ${fmtTokens(p.untrimmed)} untrimmed, ` +
        `${fmtUsd(p.cost)}${why}`,
    );
  }
}
