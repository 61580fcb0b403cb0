/**
 * Prefix sums over item heights (a Fenwick tree): the offset of item i and the item at
 * a scroll offset, both O(log n), and O(log n) updates when an expanded row is measured.
 * This is what lets the grid keep only the visible rows in the DOM.
 */
export class HeightIndex {
  private readonly tree: Float64Array;
  private readonly heights: Float64Array;
  private readonly top: number;

  constructor(heights: ArrayLike<number>) {
    const n = heights.length;
    this.heights = Float64Array.from(heights);
    this.tree = new Float64Array(n + 1);
    // O(n) build: each node passes its sum to its parent.
    for (let i = 1; i <= n; i++) {
      this.tree[i] += this.heights[i - 1];
      const j = i + (i & -i);
      if (j <= n) this.tree[j] += this.tree[i];
    }
    let top = 1;
    while (top * 2 <= n) top *= 2;
    this.top = n ? top : 0;
  }

  get length(): number {
    return this.heights.length;
  }

  height(i: number): number {
    return this.heights[i] ?? 0;
  }

  /** Change the height of item i. */
  set(i: number, h: number): void {
    const delta = h - this.heights[i];
    if (!delta) return;
    this.heights[i] = h;
    for (let k = i + 1; k < this.tree.length; k += k & -k) this.tree[k] += delta;
  }

  /** Sum of the heights of items [0, i): the top of item i. */
  offset(i: number): number {
    let s = 0;
    for (let k = Math.min(i, this.length); k > 0; k -= k & -k) s += this.tree[k];
    return s;
  }

  get total(): number {
    return this.offset(this.length);
  }

  /** The item covering offset y (clamped to the first/last item); -1 when empty. */
  indexAt(y: number): number {
    const n = this.length;
    if (!n) return -1;
    if (y <= 0) return 0;
    let pos = 0;
    let rem = y;
    for (let step = this.top; step > 0; step >>= 1) {
      const next = pos + step;
      if (next <= n && this.tree[next] <= rem) {
        pos = next;
        rem -= this.tree[next];
      }
    }
    return Math.min(pos, n - 1);
  }
}
