/**
 * One lane per client session key: a big request's steps are separate event-loop turns, and a
 * request of the same session that arrives meanwhile waits for them (its session must see the
 * big call whole), while other sessions' requests go on. Requests without a key share one lane.
 */
export class Lanes {
  private readonly tails = new Map<string, Promise<void>>();

  /** Whether a request of this key must wait. */
  busy(key: string | undefined): boolean {
    return this.tails.has(key ?? '');
  }

  /** Run `f` after every earlier request of the lane; its failure does not stop the ones after. */
  run<T>(key: string | undefined, f: () => Promise<T>): Promise<T> {
    const lane = key ?? '';
    const before = this.tails.get(lane) ?? Promise.resolve();
    const result = before.then(f);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(lane, tail);
    void tail.then(() => {
      if (this.tails.get(lane) === tail) this.tails.delete(lane);
    });
    return result;
  }
}
