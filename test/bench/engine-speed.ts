/**
 * Per-turn engine work (pipeline + token index + request build + cache planning) on
 * synthetic agent sessions of 100…5,000 messages: incremental (one new tool round on a
 * warm engine) vs cold (a fresh engine over the same log), each as a ratio to one
 * JSON.stringify of the request — the floor every sender pays.
 */
import { ContextEngine } from '../../src/core/engine';
import { Session } from '../../src/core/session';

export interface SpeedRow {
  messages: number;
  bodyMB: number;
  incrementalMs: number;
  coldMs: number;
  stringifyMs: number;
  incrementalRatio: number;
}

const SIZES = [100, 500, 1000, 2000, 5000];
const REPEATS = 9;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

let n = 0;
function addRound(s: Session, i: number): void {
  const id = `toolu_${(n++).toString(36).padStart(8, '0')}`;
  s.append('assistant', [
    { type: 'text', text: `Step ${i}: reading the next file.` },
    { type: 'tool_use', id, name: 'Read', input: { file_path: `src/module${i % 300}/file${i}.ts` } },
  ]);
  const body = Array.from(
    { length: 40 },
    (_, k) => `${String(k + 1).padStart(5)}\texport const value${i}_${k} = compute(${k}, "${i}");`,
  ).join('\n');
  s.append('user', [{ type: 'tool_result', tool_use_id: id, content: body }]);
}

function session(messages: number): Session {
  const s = new Session({ model: 'claude-sonnet-4-5' });
  s.append('user', 'Refactor the modules.');
  for (let i = 0; s.messages.length < messages - 1; i++) addRound(s, i);
  return s;
}

export function benchEngineSpeed(spec = 'default'): SpeedRow[] {
  const rows: SpeedRow[] = [];
  for (const size of SIZES) {
    const s = session(size);
    const engine = new ContextEngine(s, { strategy: spec, model: 'claude-sonnet-4-5' });
    let call = 0;
    let now = 0;
    let body = engine.prepare({ callIndex: call++, now: (now += 1000) }).body;
    const inc: number[] = [];
    const cold: number[] = [];
    const str: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      addRound(s, size + r);
      let t = performance.now();
      body = engine.prepare({ callIndex: call++, now: (now += 1000) }).body;
      inc.push(performance.now() - t);
      t = performance.now();
      const json = JSON.stringify(body);
      str.push(performance.now() - t);
      if (r < 3) {
        t = performance.now();
        new ContextEngine(s, { strategy: spec, model: 'claude-sonnet-4-5' }).prepare({ callIndex: 0, now });
        cold.push(performance.now() - t);
      }
      if (r === REPEATS - 1)
        rows.push({
          messages: s.messages.length,
          bodyMB: json.length / 1e6,
          incrementalMs: 0,
          coldMs: 0,
          stringifyMs: 0,
          incrementalRatio: 0,
        });
    }
    const row = rows[rows.length - 1];
    row.incrementalMs = median(inc);
    row.coldMs = median(cold);
    row.stringifyMs = median(str);
    row.incrementalRatio = row.incrementalMs / row.stringifyMs;
  }
  return rows;
}

export function formatSpeed(rows: readonly SpeedRow[]): string {
  return [
    '| messages | request MB | incremental ms | cold ms | JSON.stringify ms | incremental / stringify |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.messages} | ${r.bodyMB.toFixed(2)} | ${r.incrementalMs.toFixed(2)} | ${r.coldMs.toFixed(1)} | ${r.stringifyMs.toFixed(2)} | ${r.incrementalRatio.toFixed(2)}× |`,
    ),
  ].join('\n');
}
