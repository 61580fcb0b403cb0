/**
 * The engine's memory of its own message cache writes: the breakpoints recent calls wrote or read, with when and at
 * which TTL. Those still alive are the read anchors of the next request and the places a rewrite can start from.
 */
import { TTL_1H_MS, ttlMsOf } from '../api/cache-rules';
import type { Breakpoint, CacheTtl } from '../api/wire';
import type { Session } from '../session/session';
import type { PreparedCall } from './call-types';

/**
 * Recent message writes remembered as read anchors (a request has at most 4 breakpoints; older writes are rarely
 * reachable).
 */
const RECENT_WRITES = 8;

export class CacheWrites {
  /** Newest first, with the time each was last written or read and its TTL. */
  private writes: { bp: Breakpoint; at: number; ttl: CacheTtl }[] = [];

  constructor(private readonly session: Session) {}

  /** Recent message writes still alive at `now` (the TTL in use), newest first. */
  anchorsAt(now: number): Breakpoint[] {
    this.writes = this.writes.filter((w) => now - w.at < ttlMsOf(w.ttl));
    return this.writes.map((w) => w.bp);
  }

  /** Whether a 1-hour write is still alive at `now` (a pause under an hour then finds the cache warm). */
  hourAlive(now: number): boolean {
    return this.writes.some((w) => w.ttl === '1h' && now - w.at < TTL_1H_MS);
  }

  /** Keep this call's writes; forget older ones at or after the first changed message (their prefix is gone). */
  remember(prepared: PreparedCall, now: number, ttl: CacheTtl): void {
    const { session } = this;
    const fresh = prepared.breakpoints.filter((b) => b.messageIndex !== undefined);
    const ids = new Set(fresh.map((b) => b.at));
    const changedId =
      prepared.firstChanged === undefined ? undefined : prepared.blockMap.idAt(prepared.firstChanged, 0);
    const changedMsg = changedId ? session.messageOf(changedId) : undefined;
    const changedAt = changedMsg ? (session.position(changedMsg.id) ?? Infinity) : Infinity;
    const alive = this.writes.filter((w) => {
      if (ids.has(w.bp.at)) return false;
      const m = session.messageOf(w.bp.at);
      const pos = m ? session.position(m.id) : undefined;
      return pos !== undefined && pos < changedAt;
    });
    this.writes = [...fresh.map((bp) => ({ bp, at: now, ttl })), ...alive].slice(0, RECENT_WRITES);
  }

  /** The cache was lost: what earlier calls wrote is gone, only the writes made at `at` are alive. */
  keepOnlyWrittenAt(at: number | undefined): void {
    this.writes = this.writes.filter((w) => w.at === at);
  }

  /** Log positions (exclusive ends) where an alive write lets a rewrite start: the applier's B. */
  writeEnds(now: number): number[] {
    const out: number[] = [];
    for (const bp of this.anchorsAt(now)) {
      const m = this.session.messageOf(bp.at);
      const pos = m ? this.session.position(m.id) : undefined;
      if (pos === undefined) continue;
      out.push(m!.blocks[m!.blocks.length - 1].id === bp.at ? pos + 1 : pos);
    }
    return out;
  }
}
