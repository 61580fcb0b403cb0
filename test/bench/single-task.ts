/**
 * Single-task agent loops (no human turns after the task): the public SWE-agent and
 * mini-swe-agent trajectories of test/fixtures/transcripts/mit-samples, replayed through
 * `none` and `default` and priced by the same simulator and pricer as the main table
 * (engine-bench.ts). The recordings are GPT-4/4o runs with no usage, so every call is
 * replayed and priced as `claude-sonnet-4-5` (its 1,024-token minimum, its prices), one
 * second apart (warm cache), with an uncalibrated token meter; no client prefix.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { importTranscript } from '../../src/core/import';
import type { ImportedSession } from '../../src/core/session/types';
import { aggregate, CONTENDERS, runOne, type Row } from './engine-bench';
import { pct } from './report';
import { setupSession } from './session-setup';

const DIR = 'test/fixtures/transcripts/mit-samples';
/** Priced as this model: the recordings' own (GPT-4, GPT-4o) are not in the catalog. */
const PRICED_AS = 'claude-sonnet-4-5';

function asClaude(imp: ImportedSession): ImportedSession {
  return { ...imp, model: PRICED_AS, calls: imp.calls.map((c) => ({ ...c, model: PRICED_AS })) };
}

export function singleTaskSection(log: (s: string) => void): { md: string[]; rows: Row[] } {
  const rows: Row[] = [];
  const contenders = CONTENDERS.filter((c) => c.name === 'none' || c.name === 'default');
  const files = readdirSync(DIR)
    .filter((f) => !f.endsWith('.md'))
    .sort();
  for (const f of files) {
    const imp = asClaude(importTranscript(join(DIR, f)));
    if (!imp.calls.length) continue;
    // Named by file: the setup's 8-character name would make the two SWE-agent runs one.
    const s = { ...setupSession(imp), name: f.replace(/\.(traj|json)+$/, '').replace(/\.traj$/, '') };
    for (const c of contenders) {
      const r = runOne(s, c).row;
      rows.push(r);
      log(`loops ${f} ${c.name}: cost ${r.inputCost.toFixed(4)}, tokens ${r.tokensSent}, invalid ${r.invalid}`);
    }
  }
  const lines = [
    '## Single-task agent loops',
    '',
    `The public SWE-agent and mini-swe-agent trajectories in \`${DIR}\` (no human turn after the task; observations of thought-action runs are marked and trimmed like tool results, the task and demonstration stay protected). The recordings have no usage: every call is replayed and priced as \`${PRICED_AS}\`, one second apart, with an uncalibrated meter and no client prefix (test/bench/single-task.ts).`,
    '',
    '| trajectory | calls | default cost vs none | default tokens vs none | user text kept (default) | invalid requests |',
    '|---|---|---|---|---|---|',
  ];
  const names = [...new Set(rows.map((r) => r.transcript))];
  for (const name of names) {
    const none = rows.find((r) => r.transcript === name && r.contender === 'none')!;
    const def = rows.find((r) => r.transcript === name && r.contender === 'default')!;
    const kept = def.userTextNeeded ? def.userTextKept / def.userTextNeeded : 1;
    lines.push(
      `| ${name} | ${def.calls} | ${pct(def.inputCost / none.inputCost)} | ${pct(def.tokensSent / none.tokensSent)} | ${pct(kept)} | ${none.invalid + def.invalid} |`,
    );
  }
  const agg = aggregate(rows).find((a) => a.contender === 'default');
  if (agg)
    lines.push(
      `| all | ${agg.calls} | ${pct(agg.costVsNone)} | ${pct(agg.tokensVsNone)} | ${pct(agg.userText)} | ${rows.reduce((n, r) => n + r.invalid, 0)} |`,
    );
  lines.push('');
  return { md: lines, rows };
}
