/** `trimline replay <file> --strategy S --jsonl`: the exact request of every recorded call. */
import { Writable } from 'node:stream';
import { importTranscript } from '../core/import';
import { CostLedger, replay } from '../core/engine';
import { inferClientPrefix } from '../core/report';
import { jsonTerminalSafe } from '../protocol/safe-text';
import type { PipelineConfig } from '../core/trimming';

export interface ReplayCliOptions {
  strategy: string;
  config: PipelineConfig;
}

/**
 * Write one JSON line per call (DEL, C1 and bidi characters \u-escaped: safe in a terminal, same JSON): {"call",
 * "request", "stats"}; returns the number of calls.
 */
export async function runReplay(file: string, o: ReplayCliOptions, out: Writable): Promise<number> {
  const imp = importTranscript(file);
  let ledger: CostLedger | undefined;
  let n = 0;
  // Decided as the proxy would: with the client's system prompt and tools, sized from the usage, in front.
  const clientPrefix = inferClientPrefix(imp);
  for (const step of replay(imp, { strategy: o.strategy, config: o.config, clientPrefix })) {
    ledger ??= new CostLedger(step.prepared.body.model, step.engine.tokens, '5m', clientPrefix);
    const sim = ledger.step(step.prepared.body, step.now);
    const line = jsonTerminalSafe(
      JSON.stringify({
        call: step.call.index,
        request: step.prepared.body,
        stats: {
          ...step.prepared.stats,
          recordedUsage: step.call.usage ?? null,
          simulatedUsage: sim.usage,
          simulatedInputCost: sim.cost.total,
          repairs: step.prepared.repairs.map((r) => `${r.rule}: ${r.description}`),
        },
      }),
    );
    if (!out.write(line + '\n')) await new Promise((res) => out.once('drain', res));
    n++;
  }
  return n;
}
