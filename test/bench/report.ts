/**
 * Markdown for the engine benchmark sections: cost table with the hindsight floor,
 * before/after, the simulator cross-check, LOSO, and the validator's rules.
 */
import type { Aggregate, Row } from './engine-bench';
import { label, RETENTION_FLOOR, type LosoResult } from './loso';
import type { OracleResult } from './oracle';
import type { BenchSession } from './session-setup';
import type { Recorded, StepResult, TimingFacts } from './sim-check';

export const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const usd = (x: number): string => `$${x.toFixed(2)}`;

export const ORACLE_NAME = 'oracle (hindsight floor)';

export function costTable(agg: readonly Aggregate[], rows: readonly Row[], oracles: readonly OracleResult[]): string {
  const noneCost = rows.filter((r) => r.contender === 'none').reduce((s, r) => s + r.inputCost, 0);
  const noneTokens = rows.filter((r) => r.contender === 'none').reduce((s, r) => s + r.tokensSent, 0);
  const floor = oracles.reduce((s, o) => s + o.cost, 0);
  const floorTtl = oracles.reduce((s, o) => s + o.costTtl, 0);
  const costOf = (name: string): number =>
    rows.filter((r) => r.contender === name).reduce((s, r) => s + r.inputCost, 0);
  return [
    '| strategy | cost vs none | cost vs none, documented rules alone | cost vs floor | tokens vs none | retention | user text kept | calls losing user text | invalid requests | cache hit ratio | worst cost vs none | worst retention |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...agg.map(
      (a) =>
        `| ${a.contender} | ${pct(a.costVsNone)} | ${pct(a.costVsNoneUnanchored)} | ${pct(costOf(a.contender) / floor)} | ${pct(a.tokensVsNone)} | ${pct(a.retention)} | ${pct(a.userText)} | ${a.callsLosingUserText} of ${a.calls} | ${a.invalid} | ${pct(a.hitRatio)} | ${pct(a.worstCostVsNone)} | ${pct(a.worstRetention)} |`,
    ),
    `| ${ORACLE_NAME} | ${pct(floor / noneCost)} | | 100.0% | ${pct(oracles.reduce((s, o) => s + o.tokens, 0) / noneTokens)} | 100.0% (by construction) | | | – | – | – | – |`,
    `| oracle, 5-minute TTL kept | ${pct(floorTtl / noneCost)} | | ${pct(floorTtl / floor)} | | | | | | | | |`,
  ].join('\n');
}

export function perTranscript(rows: readonly Row[], oracles: readonly OracleResult[]): string {
  const floor = new Map(oracles.map((o) => [o.transcript, o]));
  return [
    '| transcript | calls | strategy | tokens sent | input cost | vs floor | hit ratio | retention (used ids) | invalid |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const bad = r.invalidList[0] ? ` (call ${r.invalidList[0].call}: ${r.invalidList[0].rule})` : '';
      const f = floor.get(r.transcript);
      return `| ${r.transcript} | ${r.calls} | ${r.contender} | ${r.tokensSent} | $${r.inputCost.toFixed(3)} | ${f ? pct(r.inputCost / f.cost) : '–'} | ${pct(r.hitRatio)} | ${pct(r.retention)} (${r.needed}) | ${r.invalid}${bad} |`;
    }),
    '',
    '| transcript | floor | floor, 5-minute TTL | floor tokens |',
    '|---|---|---|---|',
    ...oracles.map((o) => `| ${o.transcript} | $${o.cost.toFixed(3)} | $${o.costTtl.toFixed(3)} | ${o.tokens} |`),
  ].join('\n');
}

export function rulesSection(rules: Readonly<Record<string, string>>, rows: readonly Row[]): string {
  const ids = Object.values(rules);
  const bad = rows.flatMap((r) =>
    r.invalidList.map(
      (x) => `- ${r.transcript} / ${r.contender}, call ${x.call}: \`${x.rule}\` ${x.message.slice(0, 200)}`,
    ),
  );
  const perStrategy = [...new Set(rows.map((r) => r.contender))].map(
    (c) => `${c}: ${rows.filter((r) => r.contender === c).reduce((s, r) => s + r.invalid, 0)}`,
  );
  return [
    `Every request was checked with \`validateRequest\` (src/core/request/validate.ts) against the ${ids.length} rules of its \`RULE\` table at run time: ${ids.map((x) => `\`${x}\``).join(', ')}. The latest assistant message's thinking is compared with the recorded response's.`,
    '',
    `Invalid requests per strategy: ${perStrategy.join('; ')}.`,
    '',
    ...(bad.length ? ['Every violation:', '', ...bad] : ['No violations.']),
  ].join('\n');
}

export interface CheckData {
  /** Per ladder step, per strategy (none, default): totals over sessions. */
  ladder: { step: string; none: StepResult[]; def: StepResult[] }[];
  /** The anchors and others at the final step: engine sim vs reference sim. */
  finals: { contender: string; bench: number; ref: number; mismatches: number; firstMismatch?: string }[];
  legacy: { contender: string; cost: number }[];
  sessions: { s: BenchSession; timing: TimingFacts; recorded: Recorded; none: Row; def?: Row }[];
}

function recordedTable(d: CheckData): string {
  const sum = (f: (x: CheckData['sessions'][number]) => number): number => d.sessions.reduce((a, x) => a + f(x), 0);
  const rec = sum((x) => x.recorded.cost);
  const none = sum((x) => x.none.inputCost);
  const def = sum((x) => x.def?.inputCost ?? 0);
  return [
    '### Does `none` reproduce the recordings?',
    '',
    "`none` sends what the client sent (with the engine's breakpoints instead of the client's), so its simulated cost should match the recorded usage.",
    '',
    '| transcript | recorded cost | simulated none | tokens: simulated / recorded | recorded hit ratio | simulated hit ratio |',
    '|---|---|---|---|---|---|',
    ...d.sessions.map(
      (x) =>
        `| ${x.s.name} | $${x.recorded.cost.toFixed(3)} | $${x.none.inputCost.toFixed(3)} (${pct(x.none.inputCost / x.recorded.cost)}) | ${pct(x.none.tokensSent / x.recorded.tokens)} | ${pct(x.recorded.read / x.recorded.tokens)} | ${pct(x.none.hitRatio)} |`,
    ),
    `| all | ${usd(rec)} | ${usd(none)} (${pct(none / rec)}) | ${pct(sum((x) => x.none.tokensSent) / sum((x) => x.recorded.tokens))} | ${pct(sum((x) => x.recorded.read) / sum((x) => x.recorded.tokens))} | ${pct(sum((x) => x.none.hitRatio * x.none.tokensSent) / sum((x) => x.none.tokensSent))} |`,
    '',
    `Against the recorded cost instead of the simulated none, default is ${pct(def / rec)}. Where the simulation is dearer than the recording, the recording read more from the cache than the requests alone explain (the client makes calls the transcript does not hold, which warm the cache).`,
  ].join('\n');
}

const sumCost = (xs: readonly StepResult[]): number => xs.reduce((a, x) => a + x.bench.cost, 0);
const sumRef = (xs: readonly StepResult[]): number => xs.reduce((a, x) => a + x.refCost, 0);
const sumMm = (xs: readonly StepResult[]): number => xs.reduce((a, x) => a + x.mismatches, 0);

export function checkSection(d: CheckData, after: readonly Aggregate[], oracleCost: number): string {
  const legacyNone = d.legacy.find((l) => l.contender === 'none')?.cost ?? 1;
  const lines = [
    '### Before / after',
    '',
    '"Before" prices today\'s requests the way the benchmark did before (the engine\'s simulator with its old rules, the engine\'s online token estimate, response timestamps, no client prefix); "after" is the table above; "reference" prices the same requests with the independent simulator (test/bench/reference-cache-sim.ts).',
    '',
    '| strategy | before: cost vs none | after: cost vs none | reference simulator | calls where the simulators differ | after: cost vs floor |',
    '|---|---|---|---|---|---|',
    ...d.finals.map((f) => {
      const before = d.legacy.find((l) => l.contender === f.contender)?.cost;
      const a = after.find((x) => x.contender === f.contender);
      const refNone = d.finals.find((x) => x.contender === 'none')?.ref ?? 1;
      return `| ${f.contender} | ${before !== undefined ? pct(before / legacyNone) : '–'} | ${a ? pct(a.costVsNone) : '–'} | ${pct(f.ref / refNone)} | ${f.mismatches}${f.firstMismatch ? ` (${f.firstMismatch})` : ''} | ${pct(f.bench / oracleCost)} |`;
    }),
    '',
    '### From the old number to the new one, one assumption at a time',
    '',
    'Each step prices the same requests with both simulators (engine / reference); the two agree call by call unless the last column says otherwise.',
    '',
    '| step | none | default | default vs none (engine sim) | (reference sim) | calls that differ |',
    '|---|---|---|---|---|---|',
    `| 0. as it was | ${usd(legacyNone)} | ${usd(d.legacy.find((l) => l.contender === 'default')?.cost ?? 0)} | ${pct((d.legacy.find((l) => l.contender === 'default')?.cost ?? 0) / legacyNone)} | – | – |`,
    ...d.ladder.map(
      (l) =>
        `| ${l.step} | ${usd(sumCost(l.none))} | ${usd(sumCost(l.def))} | ${pct(sumCost(l.def) / sumCost(l.none))} | ${pct(sumRef(l.def) / sumRef(l.none))} | ${sumMm(l.none) + sumMm(l.def)} |`,
    ),
    '',
    recordedTable(d),
    '',
    '### The facts behind each step',
    '',
    '| transcript | model | client prefix: shared + session tokens | calls | pauses ≥ 5 min (request / response clock) | clocks disagree |',
    '|---|---|---|---|---|---|',
    ...d.sessions.map(
      ({ s, timing: t }) =>
        `| ${s.name} | ${s.model} | ${s.clientPrefix.sharedTokens} + ${s.clientPrefix.sessionTokens} | ${t.calls} | ${t.expiredByRequest} / ${t.expiredByResponse} | ${t.flips} |`,
    ),
    '',
  ];
  const step = (k: number) => d.ladder[k];
  const tok = (xs: readonly StepResult[]): number => xs.reduce((a, x) => a + x.bench.tokens, 0);
  const below = (xs: readonly StepResult[]): number => xs.reduce((a, x) => a + x.bench.belowMinimum, 0);
  const unc = (xs: readonly StepResult[]): number => xs.reduce((a, x) => a + x.bench.uncached, 0);
  lines.push(
    `- Thinking of earlier turns (step 5): none sends ${tok(step(3).none) - tok(step(4).none)} tokens of it that the API drops (${pct(1 - tok(step(4).none) / tok(step(3).none))} of its tokens), default ${tok(step(3).def) - tok(step(4).def)}; dropping it also breaks the cached prefix at each new prompt after a tool loop, which is why none's cost rises by ${usd(sumCost(step(4).none) - sumCost(step(3).none))}.`,
    `- Breakpoints below the model's minimum: ${below(step(0).none)} (none) and ${below(step(0).def)} (default) without the client prefix, ${below(step(4).none)} and ${below(step(4).def)} with it.`,
    `- Tokens after the last written breakpoint (placement of the last breakpoint), billed as plain input: ${unc(step(4).none)} (none), ${unc(step(4).def)} (default).`,
    `- Lookback 21 → 20 changes ${step(2).none.reduce((a, x, i) => a + (x.bench.cost !== step(3).none[i].bench.cost ? 1 : 0), 0) + step(2).def.reduce((a, x, i) => a + (x.bench.cost !== step(3).def[i].bench.cost ? 1 : 0), 0)} session totals: the planner anchors a read whenever the tail moves 20+ blocks, so an exactly-20 gap never reaches the simulator.`,
  );
  return lines.join('\n');
}

export function losoSection(l: LosoResult, currentIndex: number): string {
  const byPooled = l.pooled
    .map((r, g) => ({ r, g }))
    .sort((a, b) => a.r - b.r)
    .slice(0, 5);
  return [
    `Grid: ${l.grid.length} points (keepRecentTurns × digest refs × warm-call prior weight), each run once on every session (${(l.ms / 1000).toFixed(0)} s). Per fold, the point with the lowest pooled cost vs none on the other sessions, among those keeping ≥ ${pct(RETENTION_FLOOR)} of the used identifiers there.`,
    '',
    '| held-out session | chosen on the others | its cost vs none (LOSO) | with the in-sample choice | retention |',
    '|---|---|---|---|---|',
    ...l.folds.map(
      (f) =>
        `| ${f.heldOut} | ${label(l.grid[f.chosen])} | ${pct(f.heldOutRatio)} | ${pct(f.inSampleRatio)} | ${pct(f.heldOutRetention)} |`,
    ),
    '',
    `- LOSO aggregate (each session under its own fold's choice): **${pct(l.losoRatio)}** of none.`,
    `- In-sample (one choice on all sessions: ${label(l.grid[l.inSample])}): ${pct(l.inSampleRatio)}.`,
    `- Current defaults (${currentIndex >= 0 ? label(l.grid[currentIndex]) : 'not on the grid'}): ${currentIndex >= 0 ? pct(l.pooled[currentIndex]) : '–'}.`,
    `- Stable choice: ${label(l.grid[l.stable])}, chosen by ${l.stableFolds} of ${l.folds.length} folds${l.stable === currentIndex ? ' (the current defaults)' : ''}.`,
    '',
    'Best grid points on all sessions:',
    '',
    ...byPooled.map(({ r, g }) => `- ${label(l.grid[g])}: ${pct(r)}`),
  ].join('\n');
}
