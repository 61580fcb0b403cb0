/**
 * A replay decides as the proxy would when the client sends another system prompt (a new client version, a restart, a
 * rewritten earlier conversation): the proxy then finds the cache cold from the first message, a free moment to trim
 * inside what was cached (proxy/request-steps.ts). `replay`'s `headChanged` gives the engine the same moment.
 */
import { describe, expect, it } from 'vitest';
import { replay } from '../../../src/core/engine';
import type { ImportedSession } from '../../../src/core/session/types';
import { timedToolLoop } from './timed-loop';

const MODEL = 'claude-sonnet-4-5';

/** A tool loop of 12 calls, 20 s apart, each reading a large file. */
function toolLoop(): ImportedSession {
  return timedToolLoop(MODEL, 'loop.jsonl', 'refactor the modules under src/', 12, (i) => ({
    name: 'Bash',
    input: { command: `npm test -- src/m${i}` },
    result: `PASS src/m${i}/case.test.ts line ${i}: ok, nothing to see\n`.repeat(300),
  }));
}

/** What `none` cost by the engine's own shadow of the cache (savings guard), after the whole replay. */
function noneCost(headChanged?: (i: number) => boolean): number {
  let none = 0;
  for (const step of replay(toolLoop(), { strategy: 'default', clientPrefix: { tokens: 20_000 }, headChanged }))
    none = step.engine.savings().none;
  return none;
}

describe('replay with the client head changed', () => {
  it('gives the engine the cold cache the proxy sees at that call: the prefix is written again, not read', () => {
    const plain = noneCost();
    const changed = noneCost((i) => i === 8);
    expect(changed).toBeGreaterThan(plain);
    // Writing again the 20k-token prefix and the history instead of reading them: more than a few cents of base input.
    expect(changed - plain).toBeGreaterThan(0.05);
    expect(noneCost((i) => i === 0)).toBeCloseTo(plain, 10);
  });
});
