/** The request builder's repairs in the decision log: each once, though it repeats on every call while in view. */
import type { Repair } from '../api/wire';
import type { DecisionLog } from '../trimming';

export class RepairLog {
  private readonly logged = new Set<string>();
  /** Repair objects already counted (those of rendered messages recur as the same objects). */
  private readonly seen = new WeakSet<Repair>();

  constructor(private readonly decisions: DecisionLog) {}

  /** Log this call's repairs not logged before. */
  add(callIndex: number, repairs: readonly Repair[]): void {
    for (const r of repairs) {
      // A rendered message's repairs are the same objects from call to call: known without a key.
      if (this.seen.has(r)) continue;
      this.seen.add(r);
      const key = `${r.rule}:${r.blockIds.join(',')}`;
      if (this.logged.has(key)) continue;
      this.logged.add(key);
      this.decisions.add({
        callIndex,
        by: 'request-builder',
        action: 'repair',
        targets: [...r.blockIds],
        reason: `${r.rule}: ${r.description}`,
        tokensSaved: 0,
      });
    }
  }
}
