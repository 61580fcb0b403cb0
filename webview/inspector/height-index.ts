/**
 * Offsets of the grid's items when almost all of them have one height: items are
 * `base` px high except a few (expanded rows, the cache divider), kept sorted with the
 * prefix sums of their extra height. The offset of item i and the item at a scroll
 * offset are binary searches over those few, so the index costs nothing per row: a
 * live update of a 10,000-row grid rebuilds it from its exceptions, not from every row.
 */
export class HeightIndex {
  /** Item indexes whose height is not `base`, ascending, and their heights. */
  private readonly at: number[] = [];
  private readonly hs: number[] = [];
  /** extra[j]: the height the exceptions before the j-th add over `base` (length at.length + 1). */
  private extra: number[] = [0];

  /** `length` items of `base` px, except the given [index, height] pairs. */
  constructor(
    readonly length: number,
    private readonly base: number,
    exceptions: Iterable<readonly [number, number]> = [],
  ) {
    const list = [...exceptions].filter(([i, hgt]) => i >= 0 && i < length && hgt !== base).sort((a, b) => a[0] - b[0]);
    for (const [i, hgt] of list) {
      if (this.at.at(-1) === i) this.hs[this.hs.length - 1] = hgt;
      else {
        this.at.push(i);
        this.hs.push(hgt);
      }
    }
    this.sums(0);
  }

  /** An index over explicit heights (the most common height is the base). */
  static of(heights: ArrayLike<number>): HeightIndex {
    const freq = new Map<number, number>();
    for (let i = 0; i < heights.length; i++) freq.set(heights[i], (freq.get(heights[i]) ?? 0) + 1);
    let base = 0;
    let best = -1;
    for (const [hgt, n] of freq) if (n > best) [base, best] = [hgt, n];
    return new HeightIndex(
      heights.length,
      base,
      Array.from(heights, (hgt, i) => [i, hgt] as const),
    );
  }

  /** Recompute the prefix sums from exception j on. */
  private sums(from: number): void {
    this.extra.length = this.at.length + 1;
    for (let j = from; j < this.at.length; j++) this.extra[j + 1] = this.extra[j] + this.hs[j] - this.base;
  }

  /** How many exceptions are before item i. */
  private before(i: number): number {
    let lo = 0;
    let hi = this.at.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.at[mid] < i) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  height(i: number): number {
    if (i < 0 || i >= this.length) return 0;
    const j = this.before(i);
    return this.at[j] === i ? this.hs[j] : this.base;
  }

  /** Change the height of item i. */
  set(i: number, hgt: number): void {
    if (i < 0 || i >= this.length) return;
    const j = this.before(i);
    if (this.at[j] === i) {
      if (hgt === this.base) {
        this.at.splice(j, 1);
        this.hs.splice(j, 1);
      } else this.hs[j] = hgt;
    } else if (hgt !== this.base) {
      this.at.splice(j, 0, i);
      this.hs.splice(j, 0, hgt);
    } else return;
    this.sums(j);
  }

  /** Sum of the heights of items [0, i): the top of item i. */
  offset(i: number): number {
    const k = Math.max(0, Math.min(i, this.length));
    return k * this.base + this.extra[this.before(k)];
  }

  get total(): number {
    return this.offset(this.length);
  }

  /** The item covering offset y (clamped to the first/last item); -1 when empty. */
  indexAt(y: number): number {
    const n = this.length;
    if (!n) return -1;
    if (y <= 0) return 0;
    // The last exception whose top is at or above y.
    let lo = 0;
    let hi = this.at.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.at[mid] * this.base + this.extra[mid] <= y) lo = mid + 1;
      else hi = mid;
    }
    let from = 0;
    let top = 0;
    const j = lo - 1;
    if (j >= 0) {
      const start = this.at[j] * this.base + this.extra[j];
      if (y < start + this.hs[j]) return this.at[j];
      from = this.at[j] + 1;
      top = start + this.hs[j];
    }
    const i = this.base > 0 ? from + Math.floor((y - top) / this.base) : from;
    return Math.min(i, n - 1);
  }
}
