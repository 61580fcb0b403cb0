/**
 * The report's conclusions in words, shared by the terminal table and the
 * HTML page: the headline saving (anchored sessions only, with the share of
 * the spend they cover, against the recorded bill and against simulated
 * `none`), what was left out and why, strategies that cost more than `none`,
 * skipped files (counted by reason, not listed when they are only "nothing
 * billed"), and what to do next. Pure (bundled into the report webview too).
 */
import type { Report, SessionReport, Skipped } from '../protocol/report-types';

/** The reason discover/session-report give a file without a billed call (counted, not listed). */
export const NOTHING_BILLED = 'no model call recorded (nothing billed)';

function usd(n: number): string {
  if (n === 0) return '$0';
  return n < 0.01 ? `$${n.toFixed(4)}` : n < 100 ? `$${n.toFixed(2)}` : `$${Math.round(n).toLocaleString('en-US')}`;
}

function pct(x: number): string {
  // No "-0.0%": a rounding-size negative is zero.
  return `${(100 * x).toFixed(1).replace(/^-(0\.0)$/, '$1')}%`;
}

/** Text on one line: newlines and runs of whitespace (multi-line commands, paths) become one space. */
export function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

export interface HeadlineSaving {
  readonly strategy: string;
  /** Recorded input-side cost of the anchored sessions, and the strategy's over them. */
  readonly recorded: number;
  readonly cost: number;
  /** Saving against the recorded bill, and against simulated `none` (positive: cheaper). */
  readonly vsBill: number;
  readonly vsNone: number;
  /**
   * Against the bill with the documented cache rules alone; undefined when no anchored session followed unexplained
   * misses.
   */
  readonly documentedVsNone?: number;
}

/** Per strategy (not `none`), its saving over the anchored sessions. */
export function headlineSavings(rep: Report): HeadlineSaving[] {
  const a = rep.totals.anchored;
  const recorded = rep.totals.anchoredRecordedInputCost;
  const none = a.strategies.none;
  const out: HeadlineSaving[] = [];
  for (const s of rep.strategies) {
    const v = a.strategies[s];
    if (s === 'none' || !v || recorded <= 0 || !none) continue;
    const differs =
      Math.abs(v.documentedInputCost - v.inputCost) > 1e-9 ||
      Math.abs(none.documentedInputCost - none.inputCost) > 1e-9;
    out.push({
      strategy: s,
      recorded,
      cost: v.inputCost,
      vsBill: 1 - v.inputCost / recorded,
      vsNone: none.inputCost > 0 ? 1 - v.inputCost / none.inputCost : 0,
      documentedVsNone:
        differs && none.documentedInputCost > 0 ? 1 - v.documentedInputCost / none.documentedInputCost : undefined,
    });
  }
  return out;
}

/** The headline: savings on the anchored sessions, what share of the spend they cover, and what was left out. */
export function headlineLines(rep: Report): string[] {
  const t = rep.totals;
  const lines: string[] = [];
  const replayed = t.anchored.sessions + t.loose.sessions;
  lines.push(
    `Headline (anchored sessions only: ${t.anchored.sessions} of ${replayed} replayed, ${pct(t.anchored.share)} ` +
      `of the recorded input-side spend, ${usd(t.anchoredRecordedInputCost)}):`,
  );
  const saves = headlineSavings(rep);
  if (!saves.length) lines.push('  no anchored session: no saving can be stated (see the fit notes).');
  for (const h of saves) {
    const documented =
      h.documentedVsNone !== undefined
        ? `; with the documented cache rules alone ${pct(h.documentedVsNone)} of none`
        : '';
    const saves =
      h.vsBill > -0.0005 ? `saves ${pct(h.vsBill)} of the bill` : `costs ${pct(-h.vsBill)} more than the bill`;
    lines.push(
      `  ${h.strategy}: ${usd(h.cost)} instead of ${usd(h.recorded)} recorded: ${saves}, ${pct(h.vsNone)} of ` +
        `simulated none${documented}.`,
    );
  }
  if (t.loose.sessions) {
    lines.push(
      `  Left out: ${t.loose.sessions} session(s) with a loose fit (simulated none beyond ±5% of the bill; ` +
        `${usd(t.loose.recordedInputCost)} recorded input side); their notes say what the model could not follow.`,
    );
  }
  return lines;
}

/** Sessions where a strategy costs more than `none`, with the reason. */
export function dearerLines(rep: Report, name: (r: SessionReport) => string): string[] {
  const out: string[] = [];
  for (const r of rep.sessions)
    for (const s of rep.strategies)
      if (r.strategies[s]?.dearerBecause) out.push(`  ${name(r)}: ${r.strategies[s].dearerBecause}`);
  return out.length ? ['Costs more than none:', ...out] : [];
}

/** Skipped files: those with nothing billed are counted; the others listed with their reason. */
export function skippedSummary(skipped: readonly Skipped[]): { counted: string | undefined; listed: Skipped[] } {
  const nothing = skipped.filter((s) => s.reason === NOTHING_BILLED).length;
  return {
    counted: nothing
      ? `${nothing} file(s) with no model call recorded (nothing billed) were not counted as sessions.`
      : undefined,
    listed: skipped.filter((s) => s.reason !== NOTHING_BILLED),
  };
}

/** What to do next: the strategy that saved most on the anchored sessions, and how to turn it on. */
export function nextStepLines(rep: Report): string[] {
  const best = headlineSavings(rep).sort((a, b) => b.vsBill - a.vsBill)[0];
  if (!best || best.vsBill <= 0) {
    return [
      'Next: no strategy saved on the anchored sessions; keep `trimline proxy` (strategy none) to observe, or ' +
        'try others with `trimline report --strategy S`.',
    ];
  }
  return [
    `Next: run Claude Code through Trimline with \`trimline proxy --strategy ${best.strategy}\` and set ` +
      'ANTHROPIC_BASE_URL to the URL it prints',
    '(in VS Code: "Trimline: Route Terminal Agents Through Trimline"). On the anchored sessions above it would ' +
      `have saved ${usd(best.recorded - best.cost)} (${pct(best.vsBill)} of their recorded input-side bill).`,
  ];
}

/**
 * When no session was found: where the report looked and how to point it
 * elsewhere. `exists` tells a missing path from an empty one (the caller has the file system).
 */
export function nothingFoundLines(rep: Report, exists: (path: string) => boolean = () => true): string[] {
  const where = rep.searched?.length ? rep.searched : ['(no path given)'];
  const lines = ['trimline report: no recorded session found.'];
  for (const p of where)
    lines.push(
      `  looked in ${oneLine(p)}: ` +
        `${exists(p) ? 'no Claude Code session or Cline task with billed usage there' : 'it does not exist'}`,
    );
  lines.push(
    'Claude Code keeps its sessions in ~/.claude/projects ($CLAUDE_CONFIG_DIR/projects when that is set).',
    'Point the report elsewhere: `trimline report <directory or file>…` (e.g. a copied projects folder, a ' +
      'single .jsonl, or a Cline task folder), or set CLAUDE_CONFIG_DIR.',
  );
  return lines;
}
