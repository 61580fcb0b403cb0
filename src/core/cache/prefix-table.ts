/**
 * The simulator's cache entries: a prefix's 64-bit chain hash (two 32-bit words) → when it
 * expires and its TTL. Open addressing over typed arrays, so a lookup allocates nothing (a
 * Map keyed by a 53-bit number boxes the key on every lookup, and the simulator looks up to
 * 20 positions per breakpoint per request).
 */

/** Grow when more than this share of the slots is taken (linear probing stays short). */
const MAX_LOAD = 0.5;
const INITIAL_SLOTS = 1024;

export class PrefixTable {
  private a = new Uint32Array(INITIAL_SLOTS);
  private b = new Uint32Array(INITIAL_SLOTS);
  private expires = new Float64Array(INITIAL_SLOTS);
  private ttls = new Float64Array(INITIAL_SLOTS);
  private used = new Uint8Array(INITIAL_SLOTS);
  private count = 0;

  /** The slot holding prefix (a, b), or -1. */
  find(a: number, b: number): number {
    const mask = this.used.length - 1;
    for (let i = slotOf(a, b, mask); this.used[i]; i = (i + 1) & mask) if (this.a[i] === a && this.b[i] === b) return i;
    return -1;
  }

  expiresAt(slot: number): number {
    return this.expires[slot];
  }

  ttl(slot: number): number {
    return this.ttls[slot];
  }

  /** A read refreshes the entry's TTL. */
  touch(slot: number, nowMs: number): void {
    this.expires[slot] = nowMs + this.ttls[slot];
  }

  /** Write (or rewrite) the entry of prefix (a, b). */
  set(a: number, b: number, expiresAt: number, ttl: number): void {
    if (this.count + 1 > this.used.length * MAX_LOAD) this.rebuild(this.used.length * 2, -Infinity);
    const mask = this.used.length - 1;
    let i = slotOf(a, b, mask);
    for (; this.used[i]; i = (i + 1) & mask) if (this.a[i] === a && this.b[i] === b) break;
    if (!this.used[i]) {
      this.used[i] = 1;
      this.a[i] = a;
      this.b[i] = b;
      this.count++;
    }
    this.expires[i] = expiresAt;
    this.ttls[i] = ttl;
  }

  /** Forget the entries expired at `nowMs` (bounded memory over a long simulation). */
  sweep(nowMs: number): void {
    this.rebuild(this.used.length, nowMs);
  }

  /** Entries alive at `nowMs`. */
  live(nowMs: number): number {
    let n = 0;
    for (let i = 0; i < this.used.length; i++) if (this.used[i] && this.expires[i] > nowMs) n++;
    return n;
  }

  clear(): void {
    this.used.fill(0);
    this.count = 0;
  }

  /** Re-insert the entries alive at `nowMs` into `slots` slots, fewer when few are left (−Infinity: every entry). */
  private rebuild(slots: number, nowMs: number): void {
    const { a, b, expires, ttls, used } = this;
    const keep = nowMs === -Infinity ? this.count : this.live(nowMs);
    let size = slots;
    while (size > INITIAL_SLOTS && keep < (size * MAX_LOAD) / 4) size >>= 1;
    this.a = new Uint32Array(size);
    this.b = new Uint32Array(size);
    this.expires = new Float64Array(size);
    this.ttls = new Float64Array(size);
    this.used = new Uint8Array(size);
    this.count = 0;
    for (let i = 0; i < used.length; i++) if (used[i] && expires[i] > nowMs) this.set(a[i], b[i], expires[i], ttls[i]);
  }
}

function slotOf(a: number, b: number, mask: number): number {
  return (Math.imul(a ^ (b >>> 16), 0x9e3779b1) ^ b) & mask;
}
