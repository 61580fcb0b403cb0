/**
 * `npm run bench`: engine cost/quality on the shared transcripts, token calibration
 * accuracy, and request-build speed. Results go to bench-results/ (JSON + Markdown).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { PipelineConfig } from '../../src/core/trimming';
import { join } from 'node:path';
import { aggregate, benchTranscripts, CONTENDERS, runOne, type Row } from './engine-bench';
import { benchEngineSpeed, formatSpeed } from './engine-speed';
import { benchRequestBuild, formatRequestBuild } from './request-build';
import { proxySection } from './proxy-bench';
import { formatReport, measureCalibration, transcriptFiles } from './tokens';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function engineSection(rows: Row[]): string {
  const agg = aggregate(rows);
  const lines = [
    '| strategy | cost vs none | tokens vs none | retention | invalid requests | cache hit ratio | worst cost vs none | worst retention |',
    '|---|---|---|---|---|---|---|---|',
    ...agg.map((a) => `| ${a.contender} | ${pct(a.costVsNone)} | ${pct(a.tokensVsNone)} | ${pct(a.retention)} | ${a.invalid} | ${pct(a.hitRatio)} | ${pct(a.worstCostVsNone)} | ${pct(a.worstRetention)} |`),
    '',
    'Per transcript:',
    '',
    '| transcript | calls | strategy | tokens sent | input cost | hit ratio | retention (used ids) | invalid |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.transcript} | ${r.calls} | ${r.contender} | ${r.tokensSent} | $${r.inputCost.toFixed(3)} | ${pct(r.hitRatio)} | ${pct(r.retention)} (${r.needed}) | ${r.invalid}${r.firstInvalid ? ` (${r.firstInvalid.slice(0, 80)})` : ''} |`),
  ];
  return lines.join('\n');
}

function sections(): Set<string> {
  const arg = process.argv.find((a) => a.startsWith('--section='));
  return new Set(arg ? arg.slice(10).split(',') : ['engine', 'tokens', 'speed', 'proxy']);
}

async function main(): Promise<void> {
  const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const want = sections();
  const outDir = join(process.cwd(), 'bench-results');
  mkdirSync(outDir, { recursive: true });
  const md: string[] = ['# Trimline benchmarks', '', `Run ${new Date().toISOString()} on ${process.platform}/${process.arch}, Node ${process.version}.`, ''];
  if (want.has('engine')) {
    const transcripts = benchTranscripts();
    // Ad-hoc contenders for tuning: --spec=a,b [--config=file.json]
    const spec = process.argv.find((a) => a.startsWith('--spec='))?.slice(7);
    const cfgFile = process.argv.find((a) => a.startsWith('--config='))?.slice(9);
    const custom = spec ? [{ name: `custom: ${spec}`, spec, config: cfgFile ? (JSON.parse(readFileSync(cfgFile, 'utf8')) as PipelineConfig) : undefined }] : [];
    const contenders = [...(only.length ? CONTENDERS.filter((c) => only.includes(c.name) || only.includes(c.spec)) : spec ? [] : CONTENDERS), ...custom];
    const rows: Row[] = [];
    for (const imp of transcripts) {
      for (const c of contenders) {
        const r = runOne(imp, c);
        rows.push(r);
        process.stderr.write(`${r.transcript} ${c.name}: cost $${r.inputCost.toFixed(3)}, retention ${pct(r.retention)}, invalid ${r.invalid}, ${r.ms.toFixed(0)} ms\n`);
      }
    }
    writeFileSync(join(outDir, 'engine.json'), JSON.stringify({ rows, aggregate: aggregate(rows) }, null, 2));
    md.push('## Cost and retention', '', `Transcripts: ${transcripts.length} (every shared Claude Code session with ≥ ${10} calls). Cost is the simulated input cost (uncached input + cache writes + cache reads, priced per model; output is what the model said and is the same for every strategy).`, '', engineSection(rows), '');
    process.stdout.write(engineSection(rows).split('\n\nPer transcript')[0] + '\n');
  }
  if (want.has('tokens')) {
    const report = measureCalibration(transcriptFiles());
    md.push('## Token estimates vs. real usage', '', 'Per-call-delta error (the difference between consecutive calls\' recorded input totals is the true size of what was added):', '', formatReport(report), '');
  }
  if (want.has('speed')) {
    const engine = benchEngineSpeed('default');
    const none = benchEngineSpeed('none');
    const build = benchRequestBuild();
    md.push('## Speed', '', 'Per-turn engine work (pipeline, token index, request build, cache planning), default strategy:', '', formatSpeed(engine), '', 'Same with `none` (the request is the whole history, so JSON.stringify is the full size):', '', formatSpeed(none), '', 'Request builder alone:', '', '```', formatRequestBuild(build), '```', '');
    process.stdout.write(formatSpeed(engine) + '\n');
  }
  if (want.has('proxy')) md.push(await proxySection());
  writeFileSync(join(outDir, 'README.md'), md.join('\n') + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${(e as Error).stack}\n`);
  process.exitCode = 1;
});
