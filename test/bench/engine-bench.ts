/**
 * Cost and quality of every strategy on every shared transcript with ≥ 10 calls:
 * tokens sent, simulated cost with prompt caching as the API prices it (5-minute TTL
 * from the recorded timestamps, 20-block lookback, per-model minimum), cache hit
 * ratio, invalid requests, and reference retention.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CostLedger, replay } from '../../src/core/engine';
import { importTranscript } from '../../src/core/import';
import { validateRequest } from '../../src/core/request/validate';
import type { ImportedSession } from '../../src/core/session/types';
import type { PipelineConfig } from '../../src/core/trimming';
import { RetentionTracker } from './retention';

export const MIN_CALLS = 10;

export interface Contender {
  name: string;
  spec: string;
  config?: PipelineConfig;
}

export const CONTENDERS: readonly Contender[] = [
  { name: 'none', spec: 'none' },
  { name: 'default', spec: 'default' },
  { name: 'default (cache-aware off)', spec: 'default', config: { cacheAware: { enabled: false } } },
  { name: 'supersede-stale-reads', spec: 'supersede-stale-reads' },
  { name: 'summarize-tool-results', spec: 'summarize-tool-results' },
  { name: 'tool-pruning', spec: 'tool-pruning' },
  { name: 'atomic-window (100k)', spec: 'atomic-window', config: { strategies: { 'atomic-window': { maxTokens: 100_000 } } } },
  { name: 'anchor: anthropic clear_tool_uses', spec: 'anthropic-clear-tool-uses' },
  { name: 'anchor: opencode prune', spec: 'opencode-prune' },
  { name: 'anchor: openai ToolOutputTrimmer', spec: 'openai-tool-output-trimmer' },
  { name: 'anchor: strands window 40', spec: 'strands-window' },
];

export interface Row {
  transcript: string;
  contender: string;
  calls: number;
  tokensSent: number;
  inputCost: number;
  hitRatio: number;
  invalid: number;
  firstInvalid?: string;
  needed: number;
  retained: number;
  retention: number;
  ms: number;
}

export function transcriptsDir(): string {
  return join(process.cwd(), '..', 'shared', 'data', 'transcripts', 'm-claude');
}

export function benchTranscripts(dir = transcriptsDir()): ImportedSession[] {
  const out: ImportedSession[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.jsonl')).sort()) {
    try {
      const imp = importTranscript(join(dir, f));
      if (imp.calls.length >= MIN_CALLS) out.push(imp);
    } catch {
      // Files that are not conversations (summaries only) are not benchmark inputs.
    }
  }
  return out;
}

export function runOne(imp: ImportedSession, c: Contender): Row {
  const t0 = performance.now();
  let ledger: CostLedger | undefined;
  const retention = new RetentionTracker();
  let invalid = 0;
  let firstInvalid: string | undefined;
  let tokensSent = 0;
  for (const step of replay(imp, { strategy: c.spec, config: c.config })) {
    const body = step.prepared.body;
    ledger ??= new CostLedger(body.model, step.engine.tokens);
    const sim = ledger.step(body, step.now);
    tokensSent += sim.totalInput;
    const v = validateRequest(body, { model: body.model });
    if (v.length) {
      invalid++;
      firstInvalid ??= `call ${step.call.index}: ${v[0].message}`;
    }
    retention.check(imp.messages, step.call.at, body);
  }
  return {
    transcript: imp.file.split('/').pop()!.slice(0, 8),
    contender: c.name,
    calls: imp.calls.length,
    tokensSent,
    inputCost: ledger?.totals.inputCost ?? 0,
    hitRatio: ledger?.hitRatio() ?? 0,
    invalid,
    firstInvalid,
    needed: retention.needed,
    retained: retention.retained,
    retention: retention.ratio(),
    ms: performance.now() - t0,
  };
}

export interface Aggregate {
  contender: string;
  costVsNone: number;
  tokensVsNone: number;
  retention: number;
  invalid: number;
  hitRatio: number;
  worstCostVsNone: number;
  worstRetention: number;
}

/** Totals over all transcripts: cost and tokens relative to `none`, retention pooled. */
export function aggregate(rows: readonly Row[]): Aggregate[] {
  const none = new Map(rows.filter((r) => r.contender === 'none').map((r) => [r.transcript, r]));
  const names = [...new Set(rows.map((r) => r.contender))];
  return names.map((name) => {
    const mine = rows.filter((r) => r.contender === name);
    const cost = mine.reduce((s, r) => s + r.inputCost, 0);
    const noneCost = mine.reduce((s, r) => s + (none.get(r.transcript)?.inputCost ?? 0), 0);
    const tokens = mine.reduce((s, r) => s + r.tokensSent, 0);
    const noneTokens = mine.reduce((s, r) => s + (none.get(r.transcript)?.tokensSent ?? 0), 0);
    const needed = mine.reduce((s, r) => s + r.needed, 0);
    const retained = mine.reduce((s, r) => s + r.retained, 0);
    const reads = mine.reduce((s, r) => s + r.hitRatio * r.tokensSent, 0);
    return {
      contender: name,
      costVsNone: noneCost ? cost / noneCost : 1,
      tokensVsNone: noneTokens ? tokens / noneTokens : 1,
      retention: needed ? retained / needed : 1,
      invalid: mine.reduce((s, r) => s + r.invalid, 0),
      hitRatio: tokens ? reads / tokens : 0,
      worstCostVsNone: Math.max(...mine.map((r) => r.inputCost / (none.get(r.transcript)?.inputCost || 1))),
      worstRetention: Math.min(...mine.map((r) => r.retention)),
    };
  });
}
