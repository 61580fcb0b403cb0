/**
 * `npm run bench`: engine cost/quality on the shared transcripts (with the hindsight
 * floor, a cross-check by an independent cache simulator, and leave-one-session-out
 * parameter choice), token calibration accuracy, and request-build speed. Results go
 * to bench-results/ (JSON + Markdown).
 *
 * Sections: --section=engine,check,loso,loops,cline,tokens,speed,deltas,proxy,stall,soak,cli,report,timings,truth
 * (default: all but deltas,
 * which speed includes, and truth, which replays the shared sets through the proxy: minutes; cli needs CLAUDE_BIN).
 * Positional
 * arguments restrict the contenders by name or spec; --spec=a,b [--config=file.json]
 * adds an ad-hoc one for tuning.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULE } from '../../src/core/request/validate';
import type { PipelineConfig } from '../../src/core/trimming';
import {
  aggregate,
  benchTranscripts,
  CONTENDERS,
  runOne,
  type Contender,
  type Row,
  type SentRequest,
} from './engine-bench';
import { benchEngineSpeed, formatSpeed } from './engine-speed';
import { currentParams, gridIndex, runLoso } from './loso';
import { oracle } from './oracle';
import { benchRequestBuild, formatRequestBuild } from './request-build';
import { inspectorDeltasSection } from './inspector-deltas';
import { inspectorPageSection } from './inspector-page';
import { proxySection } from './proxy-bench';
import { groundTruthSection } from './ground-truth';
import { reportRunChild, reportSpeedSection } from './report-speed';
import { formatSoak, runSoak } from './soak';
import { formatStall, runStall } from './proxy-stall';
import { claudeBin, formatCliRuns, runClaudeCodeCli } from './claude-code-cli';
import { checkSection, costTable, losoSection, pct, perTranscript, rulesSection, type CheckData } from './report';
import { setupSession, type BenchSession } from './session-setup';
import { singleTaskSection } from './single-task';
import { clineTasksSection } from './cline-tasks';
import { checkStep, LADDER, legacyPricer, recordedCost, timingFacts, type StepResult } from './sim-check';
import { formatReport, measureCalibration, transcriptFiles } from './tokens';
import { timingsSection } from './timings';

/** Strategies priced by both simulators and by the old rules (the before/after table). */
const CHECKED = new Set([
  'none',
  'default',
  'anchor: anthropic clear_tool_uses',
  'anchor: opencode prune',
  'anchor: openai ToolOutputTrimmer',
  'anchor: strands window 40',
]);

function sections(): Set<string> {
  const arg = process.argv.find((a) => a.startsWith('--section='));
  return new Set(
    arg
      ? arg.slice(10).split(',')
      : [
          'engine',
          'check',
          'loso',
          'loops',
          'cline',
          'tokens',
          'speed',
          'proxy',
          'stall',
          'soak',
          'cli',
          'report',
          'timings',
        ],
  );
}

const log = (s: string): void => void process.stderr.write(`${s}\n`);

function contenders(): Contender[] {
  const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const spec = process.argv.find((a) => a.startsWith('--spec='))?.slice(7);
  const cfgFile = process.argv.find((a) => a.startsWith('--config='))?.slice(9);
  const custom = spec
    ? [
        {
          name: `custom: ${spec}`,
          spec,
          config: cfgFile ? (JSON.parse(readFileSync(cfgFile, 'utf8')) as PipelineConfig) : undefined,
        },
      ]
    : [];
  const chosen = only.length
    ? CONTENDERS.filter((c) => only.includes(c.name) || only.includes(c.spec))
    : spec
      ? []
      : [...CONTENDERS];
  // `none` is the yardstick of every ratio.
  if (!chosen.some((c) => c.name === 'none')) chosen.unshift(CONTENDERS[0]);
  return [...chosen, ...custom];
}

interface EngineRun {
  sessions: BenchSession[];
  rows: Row[];
  requests: Map<string, SentRequest[]>;
  legacy: Map<string, number>;
}

function runEngine(check: boolean): EngineRun {
  const sessions = benchTranscripts().map((imp) => setupSession(imp));
  const rows: Row[] = [];
  const requests = new Map<string, SentRequest[]>();
  const legacy = new Map<string, number>();
  for (const s of sessions) {
    for (const c of contenders()) {
      const old = check && CHECKED.has(c.name) ? legacyPricer(s.model) : undefined;
      let oldCost = 0;
      const run = runOne(
        s,
        c,
        old
          ? {
              onStep: (body, tokens, now) => {
                oldCost += old.step(body, tokens, now);
              },
            }
          : {},
      );
      rows.push(run.row);
      if (old) {
        requests.set(`${s.name}|${c.name}`, run.requests);
        legacy.set(c.name, (legacy.get(c.name) ?? 0) + oldCost);
      }
      const r = run.row;
      log(
        `${r.transcript} ${c.name}: cost $${r.inputCost.toFixed(3)}, retention ${pct(r.retention)}, invalid ${r.invalid}, ${r.ms.toFixed(0)} ms`,
      );
    }
  }
  return { sessions, rows, requests, legacy };
}

function runCheck(e: EngineRun): CheckData {
  const present = [...CHECKED].filter((c) => e.requests.has(`${e.sessions[0].name}|${c}`));
  const ladder = LADDER.map((st) => ({ step: st.label, none: [] as StepResult[], def: [] as StepResult[] }));
  const finals = present.map((contender) => ({
    contender,
    bench: 0,
    ref: 0,
    mismatches: 0,
    firstMismatch: undefined as string | undefined,
  }));
  for (const s of e.sessions) {
    LADDER.forEach((st, k) => {
      ladder[k].none.push(checkStep(s, e.requests.get(`${s.name}|none`)!, st));
      const def = e.requests.get(`${s.name}|default`);
      if (def) ladder[k].def.push(checkStep(s, def, st));
    });
    for (const f of finals) {
      const r = checkStep(s, e.requests.get(`${s.name}|${f.contender}`)!, LADDER[LADDER.length - 2]);
      f.bench += r.bench.cost;
      f.ref += r.refCost;
      f.mismatches += r.mismatches;
      if (r.firstMismatch) f.firstMismatch ??= `${s.name} ${r.firstMismatch}`;
    }
    log(`check ${s.name} done`);
  }
  return {
    ladder,
    finals,
    legacy: [...e.legacy].map(([contender, cost]) => ({ contender, cost })),
    sessions: e.sessions.map((s) => ({
      s,
      timing: timingFacts(s),
      recorded: recordedCost(s),
      none: e.rows.find((r) => r.transcript === s.name && r.contender === 'none')!,
      def: e.rows.find((r) => r.transcript === s.name && r.contender === 'default'),
    })),
  };
}

async function main(): Promise<void> {
  const want = sections();
  const outDir = join(process.cwd(), 'bench-results');
  mkdirSync(outDir, { recursive: true });
  const md: string[] = [
    '# Trimline benchmarks',
    '',
    `Run ${new Date().toISOString()} on ${process.platform}/${process.arch}, Node ${process.version}.`,
    '',
  ];
  const json: Record<string, unknown> = {};
  if (want.has('engine') || want.has('check') || want.has('loso')) {
    const e = runEngine(want.has('check'));
    const agg = aggregate(e.rows);
    const oracles = e.sessions.map((s) => oracle(s));
    const floor = oracles.reduce((a, o) => a + o.cost, 0);
    Object.assign(json, {
      rows: e.rows,
      aggregate: agg,
      oracle: oracles,
      clientPrefix: e.sessions.map((s) => ({ transcript: s.name, ...s.clientPrefix })),
    });
    md.push(
      '## Cost and retention',
      '',
      `Transcripts: ${e.sessions.length} (every shared Claude Code session with ≥ 10 calls). Cost is the simulated input cost (uncached input + cache writes + cache reads, priced per model; output is what the model said and is the same for every strategy), including the client's system prompt, tools and reminders that the transcripts do not record (measured per session from its first call), with the engine's cache simulator (src/core/cache/simulator.ts): 5-minute TTL between request times, 20-position lookback, per-model minimum, earlier turns' thinking dropped where the model drops it. The floor is the hindsight oracle (test/bench/oracle.ts): each call keeps only the prompts, the current round and the tool results whose identifiers the model uses at that call or later, cached perfectly.`,
      '',
      costTable(agg, e.rows, oracles),
      '',
      '### Validity',
      '',
      rulesSection(RULE, e.rows),
      '',
    );
    process.stdout.write(costTable(agg, e.rows, oracles) + '\n');
    if (want.has('check')) {
      const d = runCheck(e);
      json.check = {
        ladder: d.ladder.map((l) => ({
          step: l.step,
          none: l.none.reduce((a, x) => a + x.bench.cost, 0),
          default: l.def.reduce((a, x) => a + x.bench.cost, 0),
          mismatches: [...l.none, ...l.def].reduce((a, x) => a + x.mismatches, 0),
        })),
        finals: d.finals,
        legacy: d.legacy,
      };
      md.push('## Cross-check: an independent cache simulator', '', checkSection(d, agg, floor), '');
    }
    if (want.has('loso')) {
      const noneRows = e.rows.filter((r) => r.contender === 'none');
      const l = runLoso(e.sessions, noneRows, log);
      const current = gridIndex(currentParams());
      json.loso = l;
      md.push('## Default parameters, leave one session out', '', losoSection(l, current), '');
    }
    md.push('## Per transcript', '', perTranscript(e.rows, oracles), '');
    writeFileSync(join(outDir, 'engine.json'), JSON.stringify(json, null, 2));
  }
  if (want.has('loops')) {
    const loops = singleTaskSection(log);
    md.push(...loops.md);
    writeFileSync(join(outDir, 'loops.json'), JSON.stringify(loops.rows, null, 2));
  }
  if (want.has('cline')) {
    const cline = clineTasksSection(log);
    md.push(...cline.md);
    writeFileSync(join(outDir, 'cline.json'), JSON.stringify(cline.rows, null, 2));
  }
  if (want.has('tokens')) {
    const report = measureCalibration(transcriptFiles());
    md.push(
      '## Token estimates vs. real usage',
      '',
      "Per-call-delta error (the difference between consecutive calls' recorded input totals is the true size of what was added):",
      '',
      formatReport(report),
      '',
    );
  }
  if (want.has('speed')) {
    const engine = benchEngineSpeed('default');
    const none = benchEngineSpeed('none');
    const build = benchRequestBuild();
    md.push(
      '## Speed',
      '',
      'Per-turn engine work (pipeline, token index, request build, cache planning), default strategy:',
      '',
      formatSpeed(engine),
      '',
      'Same with `none` (the request is the whole history, so JSON.stringify is the full size):',
      '',
      formatSpeed(none),
      '',
      'Request builder alone:',
      '',
      '```',
      formatRequestBuild(build),
      '```',
      '',
    );
    process.stdout.write(formatSpeed(engine) + '\n');
  }
  if (want.has('speed') || want.has('deltas')) md.push(...inspectorDeltasSection(), ...(await inspectorPageSection()));
  if (want.has('proxy')) md.push(await proxySection());
  if (want.has('stall')) {
    const section = formatStall(await runStall(log));
    md.push(...section);
    process.stdout.write(`${section.join('\n')}\n`);
  }
  if (want.has('truth')) {
    const section = await groundTruthSection();
    md.push(...section);
    process.stdout.write(`${section.join('\n')}\n`);
  }
  if (want.has('soak')) {
    const soak = await runSoak(log);
    const section = formatSoak(soak);
    md.push(...section);
    process.stdout.write(`${section.join('\n')}\n`);
    writeFileSync(join(outDir, 'soak.json'), JSON.stringify(soak, null, 2));
    writeFileSync(
      join(outDir, 'soak.md'),
      `# Trimline soak\n\nRun ${new Date().toISOString()} on ${process.platform}/${process.arch}, Node ${process.version}.\n\n${section.join('\n')}\n`,
    );
  }
  if (want.has('cli')) {
    const bin = claudeBin();
    const section = ['## The real Claude Code CLI through the proxy', ''];
    if (!bin)
      section.push('Not measured: set `CLAUDE_BIN` to a Claude Code executable (test/bench/claude-code-cli.ts).', '');
    else {
      const runs = [];
      for (const strategy of ['none', 'default']) {
        log(`cli: ${strategy}`);
        runs.push(await runClaudeCodeCli(bin, strategy));
      }
      section.push(
        `Claude Code (\`${bin}\`), one prompt, 28 reads of a 150-line file each and the answer, through \`trimline proxy\` to the local server (test/bench/claude-code-cli.ts). User text is checked against the proxy's log of what the client sent; tokens and cost from the upstream's usage, priced by src/core/cache/cost.ts.`,
        '',
        formatCliRuns(runs),
        '',
      );
      writeFileSync(join(outDir, 'claude-code-cli.json'), JSON.stringify(runs, null, 2));
    }
    md.push(...section);
    process.stdout.write(`${section.join('\n')}\n`);
    writeFileSync(
      join(outDir, 'claude-code-cli.md'),
      `# Trimline with the real Claude Code CLI\n\nRun ${new Date().toISOString()} on ${process.platform}/${process.arch}, Node ${process.version}.\n\n${section.join('\n')}\n`,
    );
  }
  if (want.has('report')) {
    const r = reportSpeedSection(log);
    md.push(...r.md);
    writeFileSync(join(outDir, 'report.json'), JSON.stringify(r.json, null, 2));
  }
  if (want.has('timings')) {
    const t = timingsSection(log);
    md.push(...t.md);
    writeFileSync(join(outDir, 'timings.json'), JSON.stringify(t.json, null, 2));
  }
  writeFileSync(join(outDir, 'README.md'), md.join('\n') + '\n');
}

// A report run of the `report` section is a child process of this bundle (see report-speed.ts).
reportRunChild(process.argv)
  .then((child) => (child ? undefined : main()))
  .catch((e: unknown) => {
    process.stderr.write(`bench failed: ${(e as Error).stack}\n`);
    process.exitCode = 1;
  });
