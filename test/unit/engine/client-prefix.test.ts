/**
 * Decide as the proxy would: a replayed transcript holds no system prompt or tools, but the client
 * sent them in front of every request. An Opus session whose messages alone are under Opus's 4,096
 * minimum is cacheable with its 20k-token prefix: the engine places breakpoints on every call.
 */
import { describe, expect, it } from 'vitest';
import { CostLedger, replay } from '../../../src/core/engine';
import type { ImportedSession } from '../../../src/core/session/types';
import { timedToolLoop } from './timed-loop';

const MODEL = 'claude-opus-4-5';

/** A short Opus session: 12 calls, a few hundred tokens each, 20 s apart. */
function shortOpusSession(): ImportedSession {
  return timedToolLoop(MODEL, 'short-opus.jsonl', 'fix the failing test in src/a.ts', 12, (i) => ({
    name: 'Read',
    input: { file_path: `src/f${i}.ts` },
    result: `export const v${i} = ${i};\n`.repeat(8),
  }));
}

function messageBreakpoints(imp: ImportedSession, clientPrefix?: { tokens: number }): number[] {
  const out: number[] = [];
  for (const step of replay(imp, { strategy: 'default', clientPrefix }))
    out.push(step.prepared.breakpoints.filter((b) => b.messageIndex !== undefined).length);
  return out;
}

describe('replay decides with the client prefix in front of the messages', () => {
  it('an Opus session under the 4,096-token minimum gets breakpoints on every call with its 20k system prefix', () => {
    const imp = shortOpusSession();
    const alone = messageBreakpoints(imp);
    expect(alone.every((n) => n === 0)).toBe(true);
    const withPrefix = messageBreakpoints(imp, { tokens: 20_000 });
    expect(withPrefix).toHaveLength(12);
    expect(withPrefix.every((n) => n >= 1)).toBe(true);
  });

  it('the request carries the prefix as a system block where the client had its breakpoint, priced at its size', () => {
    const imp = shortOpusSession();
    const prefix = { tokens: 20_000 };
    let ledger: CostLedger | undefined;
    let read = 0;
    for (const step of replay(imp, { strategy: 'default', clientPrefix: prefix })) {
      expect(step.prepared.breakpoints[0].at).toBe('system');
      expect(step.prepared.breakpoints[0].prefixTokens).toBe(20_000);
      ledger ??= new CostLedger(MODEL, step.engine.tokens, '5m', prefix);
      const e = ledger.step(step.prepared.body, step.now);
      expect(e.totalInput).toBeGreaterThan(20_000);
      read += e.usage.cache_read_input_tokens;
    }
    // Every call after the first reads the prefix and the messages cached before it.
    expect(read).toBeGreaterThan(11 * 20_000);
  });
});
