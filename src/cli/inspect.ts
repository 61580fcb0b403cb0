/** `trimline inspect <file>`: the view after replaying a transcript through a strategy. */
import { readFileSync } from 'node:fs';
import { importTranscript } from '../core/import';
import { journalImporter } from '../core/import/journal';
import type { ImportedSession } from '../core/session/types';
import { CostLedger, replay, totals, viewRows, type ContextEngine, type ReplayStep } from '../core/engine';
import { inferClientPrefix } from '../core/report';
import type { PipelineConfig } from '../core/trimming';
import { serveTranscript } from '../host/standalone';
import { jsonTerminalSafe, terminalSafe, terminalSafeLine as line } from '../protocol/safe-text';
import { lineageCalls } from '../core/store/verdicts';
import { loadJournal } from '../core/store/load';
import { INFERRED_NOTE, inferredHeadRows, transcriptBill } from '../core/report';
import { pad, padStart, usd, UsageError } from './common';
import { verdictLines } from './verdict-lines';

export interface InspectOptions {
  /** Undefined: not asked for (a journal shows what was sent, `none`; a transcript replays with `default`). */
  strategy?: string;
  config: PipelineConfig;
  json: boolean;
}

/**
 * The strategy a file is shown with: the one asked for; else a Trimline journal shows what was
 * sent (`none`: the client's messages with the overlays the journal holds), and a transcript is
 * replayed with `default`.
 */
export function strategyFor(file: string, asked: string | undefined): string {
  if (asked !== undefined) return asked;
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return 'default';
  }
  return journalImporter.detect({ file, text, json: { ok: false as const, error: 'not parsed' } }) ? 'none' : 'default';
}

/** A Trimline journal (a proxied or agent session) or any transcript format. */
function importJournalOrTranscript(file: string): ImportedSession {
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // importTranscript says why the file cannot be read.
  }
  const input = text === undefined ? undefined : { file, text, json: { ok: false as const, error: 'not parsed' } };
  return input && journalImporter.detect(input) ? journalImporter.parse(input) : importTranscript(file);
}

/** A journal's calls (by their index in its log) numbered as its verdicts number them: across the session's epochs. */
export function journalCallNumbers(file: string): Map<number, number> {
  return new Map(loadJournal(file).verdicts.map((v) => [v.verdict.sessionCall, v.verdict.call]));
}

/** Replay every recorded call, then prepare the request that would come next. */
export function inspectTranscript(file: string, o: InspectOptions & { strategy: string }) {
  const imp = importJournalOrTranscript(file);
  const clientPrefix = inferClientPrefix(imp);
  const it = replay(imp, { strategy: o.strategy, config: o.config, clientPrefix });
  let engine: ContextEngine | undefined;
  let ledger: CostLedger | undefined;
  let last: ReplayStep | undefined;
  for (;;) {
    const r = it.next();
    if (r.done) {
      engine = r.value;
      break;
    }
    ledger ??= new CostLedger(r.value.prepared.body.model, r.value.engine.tokens, '5m', clientPrefix);
    ledger.step(r.value.prepared.body, r.value.now);
    last = r.value;
  }
  const now = (last?.now ?? Date.now()) + 1000;
  const epochStart = imp.calls.at(-1)?.epochStart ?? 0;
  const cachedUpTo = last?.call.at ?? 0;
  const next = engine.prepare({ callIndex: imp.calls.length, upTo: engine.session.messages.length, epochStart, now });
  ledger ??= new CostLedger(next.body.model, engine.tokens, '5m', clientPrefix);
  const nextCost = ledger.step(next.body, now);
  const rows = viewRows(engine, next, epochStart, cachedUpTo);
  // The report's bill of the same session: its `none` and the system prompt and tools the transcript lacks.
  const bill = imp.format === 'trimline-journal' ? undefined : transcriptBill(imp, o.strategy, o.config);
  const inferred = bill ? inferredHeadRows(bill.prefix) : [];
  return { imp, engine, next, rows, totals: totals(rows), nextCost, ledger, bill, inferred };
}

/** The inspect output, text or JSON, safe to print to a terminal (see protocol/safe-text.ts). */
export function runInspect(file: string, opts: InspectOptions): string {
  const o = { ...opts, strategy: strategyFor(file, opts.strategy) };
  const r = inspectTranscript(file, o);
  // A proxied session's journal: every call's cache verdict, across the client session's epochs.
  const perCall = r.imp.format === 'trimline-journal' ? lineageCalls(file) : undefined;
  // One count everywhere: a proxied session's calls across its epochs, as its verdict list counts them.
  const calls = perCall?.length ?? r.imp.calls.length;
  const inFile = calls === r.imp.calls.length ? '' : ` (${r.imp.calls.length} in this epoch's journal)`;
  if (o.json) {
    return jsonTerminalSafe(
      JSON.stringify(
        {
          file,
          format: r.imp.format,
          model: r.next.body.model,
          strategy: o.strategy,
          calls,
          fileCalls: r.imp.calls.length,
          issues: r.imp.issues,
          rows: r.rows,
          totals: r.totals,
          breakpoints: r.next.breakpoints,
          ...(r.bill ? { bill: r.bill, inferred: { rows: r.inferred, note: INFERRED_NOTE } } : {}),
          // The engine's own replay of the messages alone (no system prompt or tools): what inspect showed before.
          replay: {
            calls: r.ledger.totals.calls,
            messagesOnlyInputCost: r.ledger.totals.inputCost,
            hitRatio: r.ledger.hitRatio(),
          },
          next: { usage: r.nextCost.usage, cost: r.nextCost.cost },
          decisions: r.engine.decisions.all(),
          ...(perCall ? { perCall } : {}),
        },
        null,
        2,
      ),
    );
  }
  const out: string[] = [];
  const head = `${r.imp.format}, ${r.imp.messages.length} messages, ${calls} calls${inFile}`;
  out.push(`${line(file)}  (${head}, model ${line(r.next.body.model)}, strategy ${line(o.strategy)})`);
  for (const i of r.imp.issues.slice(0, 5)) out.push(`  note: ${i.line ? `line ${i.line}: ` : ''}${line(i.message)}`);
  if (r.imp.issues.length > 5) out.push(`  note: … ${r.imp.issues.length - 5} more import notes (--json lists all)`);
  out.push('');
  out.push(
    `${pad('#', 8)} ${pad('role', 9)} ${pad('kind', 12)} ${pad('tool', 14)} ${padStart('tokens', 8)} ` +
      `${pad('q', 2)} ${pad('state', 10)} why`,
  );
  for (const h of r.inferred) {
    const why = `${h.what}; ${INFERRED_NOTE}`;
    const tokens = padStart(String(Math.round(h.tokens)), 8);
    const cells = [pad(h.ref, 8), pad('system', 9), pad('inferred', 12), pad('', 14), tokens];
    out.push(`${cells.join(' ')} ${pad('i', 2)} ${pad('verbatim', 10)} ${why}`);
  }
  let cachedEnded = false;
  for (const row of r.rows) {
    if (!cachedEnded && !row.cached && r.rows[0]?.cached) {
      out.push('──────── cached prefix of the previous request ends here ────────');
      cachedEnded = true;
    }
    const tokens = row.sent ? String(row.tokens) : `(${row.originalTokens})`;
    const mark = row.breakpoint ? ' ◆cache' : '';
    out.push(
      `${pad(line(row.ref), 8)} ${pad(line(row.role), 9)} ${pad(line(row.kind), 12)} ` +
        `${pad(line(row.tool ?? ''), 14)} ${padStart(tokens, 8)} ${pad(row.quality[0], 2)} ` +
        `${pad(line(row.state), 10)} ${line(row.why ?? '')}${mark}`,
    );
  }
  const t = r.totals;
  const c = r.nextCost;
  out.push('');
  out.push(
    `blocks: ${Object.entries(t.byState)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}`,
  );
  out.push(
    `messages sent: ~${t.sentTokens} tokens (untrimmed ${t.untrimmedTokens}, ` +
      `${t.untrimmedTokens ? Math.round((100 * t.sentTokens) / t.untrimmedTokens) : 100}%), quality ` +
      `${r.rows[0]?.quality ?? 'estimated'}; breakpoints ${r.next.breakpoints.length}; repairs ` +
      `${r.next.repairs.length}`,
  );
  out.push(
    `next request: input ${c.usage.input_tokens}, cache write ${c.usage.cache_creation_input_tokens}, cache read ` +
      `${c.usage.cache_read_input_tokens} tokens → ${usd(c.cost.total)} input cost`,
  );
  const b = r.bill;
  const hits = `cache hit ratio ${(100 * r.ledger.hitRatio()).toFixed(1)}%`;
  if (b) {
    const inferred = r.inferred.reduce((n, h) => n + h.tokens, 0);
    const strategy = b.strategy === 'none' ? '' : `, ${line(b.strategy)} ${usd(b.strategyCost)}`;
    const fit = b.anchored ? '' : ' (loose fit)';
    out.push(`system prompt and tools (inferred, not in the transcript): ~${Math.round(inferred)} tokens per request`);
    const costs = `none ${usd(b.none)}${strategy}; recorded ${usd(b.recorded)}${fit}`;
    out.push(`session input cost as \`trimline report\` prices it: ${costs}`);
    out.push(`replay of ${r.ledger.totals.calls} requests (messages only): ${hits}`);
  } else {
    const cost = usd(r.ledger.totals.inputCost);
    out.push(`replay of ${r.ledger.totals.calls} requests: ${cost} simulated input cost, ${hits}`);
  }
  out.push('(q: e = estimated, c = calibrated, x = exact, i = inferred from usage; tokens in parentheses: not sent)');
  if (perCall) out.push('', ...verdictLines(perCall));
  return terminalSafe(out.join('\n'));
}

/** Parse `--port N` (0 = any free port). */
export function parsePort(v: string | undefined): number {
  if (v === undefined) return 0;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new UsageError(`--port must be an integer 0–65535, got "${v}"`);
  }
  return n;
}

/** `trimline inspect <file> --serve`: serve the inspector on 127.0.0.1 until interrupted. */
export async function serveInspect(
  file: string,
  o: InspectOptions & { port: number },
  out: NodeJS.WritableStream,
): Promise<void> {
  const strategy = strategyFor(file, o.strategy);
  const imported = importJournalOrTranscript(file);
  const numbers = imported.format === 'trimline-journal' ? journalCallNumbers(file) : undefined;
  const callNumber = numbers && ((i: number): number | undefined => numbers.get(i));
  const served = { strategy, config: o.config, port: o.port, imported, callNumber };
  const { server, inspector } = await serveTranscript(file, served);
  const snap = inspector.snapshot();
  const replayed = `${snap.calls.length} calls replayed with strategy ${line(strategy)}`;
  out.write(`${line(file)}: ${snap.rows.length} blocks, ${replayed}\n`);
  out.write(`Trimline inspector: ${server.pageUrl}  (127.0.0.1 only; Ctrl+C to stop)\n`);
  await new Promise<void>((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      server.close().then(done, done);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
