/**
 * Never dearer than `none`: a session whose long pauses expire the cache every 10–20 calls (like
 * m-claude 3cfce0ff), where rewrites of the cached prefix a few calls into a loop never pay back
 * before the next pause. Priced by the cache simulator (documented rules) on the requests the
 * engine sends, `default` ends at most 0.5% above `none`, and the guard's decision is in the log.
 */
import { describe, expect, it } from 'vitest';
import { CostLedger, replay, type ContextEngine } from '../../../src/core/engine';
import { Session } from '../../../src/core/session';
import type { CallRecord, ImportedSession } from '../../../src/core/session/types';
import type { PipelineConfig } from '../../../src/core/trimming';
import { round } from '../trimming/helpers';

const MODEL = 'claude-sonnet-4-5';
const PREFIX = { tokens: 15_000 };

function fileText(name: string, version: number): string {
  return (
    `// ${name} v${version}\n` +
    Array.from(
      { length: 160 },
      (_, i) => `export function ${name}_${i}(x: number) { return x * ${i + version}; }`,
    ).join('\n')
  );
}

/**
 * Stretches of 10–20 calls, each a user turn, with a 7-minute pause after each (past the client's
 * 5-minute TTL): each reads a large file first, then small files, and the large file again two calls
 * before its pause. The stale first read sits deep in the cached prefix: trimming it rewrites the
 * stretch for a saving that lasts two calls, before the next turn prunes the stretch anyway.
 */
function pausingSession(): ImportedSession {
  const s = new Session({ model: MODEL });
  const calls: CallRecord[] = [];
  let t = Date.parse('2026-01-01T10:00:00Z');
  const call = (): void => {
    calls.push({
      index: calls.length,
      at: s.messages.length,
      epochStart: 0,
      model: MODEL,
      timestamp: new Date(t).toISOString(),
    });
    t += 15_000;
  };
  for (let stretch = 0; stretch < 8; stretch++) {
    s.append('user', `refactor module ${stretch}`);
    const big = `big${stretch}`;
    const n = 10 + ((stretch * 7) % 11);
    for (let i = 0; i < n; i++) {
      call();
      const name = i === 0 || i === n - 3 ? big : `small${stretch}_${i}`;
      const text = i === 0 || i === n - 3 ? fileText(big, stretch) : `export const s${i} = ${i};\n`.repeat(6);
      round(s, [{ name: 'Read', input: { file_path: `src/${name}.ts` }, result: text }]);
    }
    call();
    s.append('assistant', `module ${stretch} done`);
    t += 7 * 60_000;
  }
  return { format: 'claude-code', file: 'pausing.jsonl', model: MODEL, messages: s.messages, calls, issues: [] };
}

function cost(
  imp: ImportedSession,
  strategy: string,
  config: PipelineConfig = {},
): { usd: number; engine: ContextEngine } {
  let ledger: CostLedger | undefined;
  let engine: ContextEngine | undefined;
  for (const step of replay(imp, { strategy, config, clientPrefix: PREFIX, calibrate: false })) {
    ledger ??= new CostLedger(MODEL, step.engine.tokens, '5m', PREFIX);
    ledger.step(step.prepared.body, step.now);
    engine = step.engine;
  }
  return { usd: ledger!.totals.inputCost, engine: engine! };
}

const SPEC = 'supersede-stale-reads,tool-pruning';

describe('the savings guard', () => {
  it('holds a rewrite the session has not saved enough to risk, and says so with the numbers', () => {
    const imp = pausingSession();
    const none = cost(imp, 'none').usd;
    const unguarded = cost(imp, SPEC, { cacheAware: { guard: false } }).usd;
    const guarded = cost(imp, SPEC);
    const lines = guarded.engine.decisions.all().filter((d) => d.reason.startsWith('guard:'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0].reason).toMatch(/saved \$[0-9.]+ vs none so far \(paid \$[0-9.]+, none \$[0-9.]+/);
    expect(guarded.engine.savings().held).toBeGreaterThan(0);
    expect(guarded.usd).toBeLessThan(unguarded);
    expect(guarded.usd).toBeLessThanOrEqual(none * 1.005);
  });

  it('keeps default at most 0.5% above none, with saved-so-far in the engine', () => {
    const imp = pausingSession();
    const none = cost(imp, 'none').usd;
    const d = cost(imp, 'default');
    expect(d.usd).toBeLessThanOrEqual(none * 1.005);
    const snap = d.engine.savings();
    expect(snap.saved).toBeCloseTo(snap.none - snap.paid, 9);
    expect(snap.none).toBeGreaterThan(0);
  });
});
