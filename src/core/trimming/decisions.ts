/** The "why" log: every decision with its reason, queryable per block. */
import type { Decision } from './types';

export class DecisionLog {
  private readonly entries: Decision[] = [];
  private readonly byTarget = new Map<string, Decision[]>();
  private readonly listeners = new Set<(d: Decision) => void>();

  /** Log a decision; `d` must be a fresh object (it becomes the entry). */
  add(d: Omit<Decision, 'seq'>): Decision {
    // The entry is the caller's object with its number added (callers pass a fresh literal): the
    // same fields in the same order as `{ ...d, seq }`, without the spread's copy on every decision.
    (d as { seq?: number }).seq = this.entries.length;
    const full = d as Decision;
    this.entries.push(full);
    for (const t of full.targets) {
      const list = this.byTarget.get(t);
      if (list) list.push(full);
      else this.byTarget.set(t, [full]);
    }
    for (const l of this.listeners) l(full);
    return full;
  }

  on(listener: (d: Decision) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  all(): readonly Decision[] {
    return this.entries;
  }

  since(seq: number): readonly Decision[] {
    return this.entries.slice(seq);
  }

  /** Decisions about a block or message id, oldest first ("why was this trimmed?"). */
  about(id: string): readonly Decision[] {
    return this.byTarget.get(id) ?? [];
  }
}
