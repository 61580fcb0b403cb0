/**
 * Top offenders: the tool results that cost the most over all the calls that
 * re-sent them, priced per call by where they sat in the prompt (read from
 * cache, written, or sent uncached) in the `none` replay of the bill, by the one
 * pricer (cache/cost.ts `inputSidePrice`).
 */
import { inputSidePrice } from '../cache/cost';
import { modelPrice, type ModelPrice } from '../models';
import type { ImportedSession } from '../session/types';
import type { Offender } from '../../protocol/report-types';
import type { BillStep, SpanParts, SpanSink } from './bill-model';

/** Offenders listed per session and in the totals. */
export const OFFENDERS_SHOWN = 10;
/**
 * Offenders are ranked by dollars at this precision (10⁻¹⁰ $): two results that cost the same,
 * summed in another order, tie (and keep prompt order) instead of being ordered by rounding noise.
 */
const RANK_PER_DOLLAR = 1e10;
const ranked = (dollars: number): number => Math.round(dollars * RANK_PER_DOLLAR);
/** Characters of a command or path shown. */
const TARGET_CHARS = 80;

/** The most telling input field of a tool call, shortened. */
export function toolTarget(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const o = input as Record<string, unknown>;
  for (const k of [
    'file_path',
    'path',
    'notebook_path',
    'command',
    'pattern',
    'url',
    'query',
    'description',
    'prompt',
  ]) {
    const v = o[k];
    if (typeof v === 'string' && v) return v.length > TARGET_CHARS ? `${v.slice(0, TARGET_CHARS - 1)}…` : v;
  }
  return '';
}

/**
 * Cost (USD) of `tokens` sent at [start, start+tokens) in a call that read `step.readTokens` from cache
 * and wrote up to `step.writtenUpTo` (writes at `ttl`).
 */
export function spanCost(start: number, tokens: number, step: BillStep, price: ModelPrice, ttl: '5m' | '1h'): number {
  const end = start + tokens;
  const overlap = (a: number, b: number): number => Math.max(0, Math.min(end, b) - Math.max(start, a));
  const read = overlap(0, step.readTokens);
  const written = overlap(step.readTokens, step.writtenUpTo);
  return inputSidePrice({ read, written, uncached: tokens - read - written }, price, ttl);
}

interface Row {
  tokens: number;
  sent: number;
  dollars: number;
}

/**
 * Collects per tool result: size, times sent, dollars. Feed it every step of the `none` bill:
 * {@link spans} (as the step's {@link SpanSink}), then {@link commit} with the step.
 *
 * The work per step grows with what is new, not with the history. The tool results of the
 * messages unchanged since the last step keep their places (the same {@link SpanParts}), and
 * most of them lie wholly inside the cache read, where a call costs `tokens × cache read`.
 * So a billed call prices directly only the results past its read point (a suffix); for the
 * rest it records one "read call" on a prefix of the results (a difference array), and every
 * result's count of calls is the number of billed calls while it was sent. Both are settled
 * into its row when the result leaves the request (its message changed) or at {@link top}.
 */
export class OffenderTally {
  private readonly rows = new Map<string, Row>();
  private readonly price: ModelPrice;
  // The tool results sent in the last step, in prompt order (parallel arrays).
  private readonly ids: string[] = [];
  private readonly starts: number[] = [];
  private readonly tokens: number[] = [];
  /** Its row, once a billed call sent it (rows are made in the order the original per-call walk made them). */
  private readonly rowOf: (Row | undefined)[] = [];
  /** Billed calls before it was first sent in its current place. */
  private readonly entry: number[] = [];
  /** reads[j] = billed calls that read every result before index j wholly from cache, not yet settled. */
  private readonly reads: number[] = [0];
  /** Per message of the last step: its parts, and the results and tokens up to its end. */
  private readonly msgParts: SpanParts[] = [];
  private readonly msgResults: number[] = [];
  private readonly msgEnd: number[] = [];
  private start = NaN;
  private billed = 0;
  /** Results [0, rowed) have their row. */
  private rowed = 0;

  constructor(
    private readonly imp: ImportedSession,
    model: string,
  ) {
    this.price = modelPrice(model);
  }

  /** The step's messages as billed ({@link SpanSink}). */
  readonly spans: SpanSink = (parts, start) => {
    let k = 0;
    if (start === this.start)
      for (const n = Math.min(parts.length, this.msgParts.length); k < n && parts[k] === this.msgParts[k];) k++;
    this.start = start;
    this.truncate(k > 0 ? this.msgResults[k - 1] : 0);
    this.msgParts.length = this.msgResults.length = this.msgEnd.length = k;
    let pos = k > 0 ? this.msgEnd[k - 1] : start;
    for (let mi = k; mi < parts.length; mi++) {
      for (const f of parts[mi].folded) {
        const b = f.block;
        if (b.logId && b.id === b.logId && this.isToolResult(b.logId)) this.push(b.logId, pos, f.tokens);
        pos += f.tokens;
      }
      this.msgParts.push(parts[mi]);
      this.msgResults.push(this.ids.length);
      this.msgEnd.push(pos);
    }
  };

  /** After the step: a billed call counts every result sent, each priced by where it sat. */
  commit(step: BillStep, ttl: '5m' | '1h', billed: boolean): void {
    if (!billed) return;
    this.billed++;
    const n = this.ids.length;
    for (let x = this.rowed; x < n; x++) {
      let row = this.rows.get(this.ids[x]);
      if (!row) this.rows.set(this.ids[x], (row = { tokens: this.tokens[x], sent: 0, dollars: 0 }));
      this.rowOf[x] = row;
    }
    this.rowed = n;
    let x = n - 1;
    for (; x >= 0 && this.starts[x] + this.tokens[x] > step.readTokens; x--) {
      this.rowOf[x]!.dollars += spanCost(this.starts[x], this.tokens[x], step, this.price, ttl);
    }
    if (x >= 0) this.reads[x + 1]++;
  }

  private push(id: string, start: number, tokens: number): void {
    this.ids.push(id);
    this.starts.push(start);
    this.tokens.push(tokens);
    this.rowOf.push(undefined);
    this.entry.push(this.billed);
    this.reads.push(0);
  }

  /** Settle the results from index `t` on into their rows and forget them (their message changed). */
  private truncate(t: number): void {
    const n = this.ids.length;
    if (t >= n) return;
    const carried = this.settle(t);
    if (t > 0) this.reads[t] += carried;
    this.ids.length = this.starts.length = this.tokens.length = this.rowOf.length = this.entry.length = t;
    this.reads.length = t + 1;
    this.rowed = Math.min(this.rowed, t);
  }

  /**
   * Settle results [t, n) into their rows (counts restart from now); returns the read calls that also covered results
   * before t.
   */
  private settle(t: number): number {
    let acc = 0;
    for (let x = this.ids.length - 1; x >= t; x--) {
      acc += this.reads[x + 1];
      this.reads[x + 1] = 0;
      const row = this.rowOf[x];
      if (row) {
        row.sent += this.billed - this.entry[x];
        row.dollars += inputSidePrice({ read: acc * this.tokens[x] }, this.price);
      }
      this.entry[x] = this.billed;
    }
    return acc;
  }

  private resultIds?: Map<string, { tool: string; input: unknown }>;

  private isToolResult(id: string): boolean {
    if (!this.resultIds) {
      const uses = new Map<string, { tool: string; input: unknown }>();
      this.resultIds = new Map();
      for (const m of this.imp.messages) {
        for (const b of m.blocks) {
          if (b.param.type === 'tool_use') uses.set(b.param.id, { tool: b.param.name, input: b.param.input });
          else if (b.param.type === 'tool_result')
            this.resultIds.set(b.id, uses.get(b.param.tool_use_id) ?? { tool: b.toolName ?? '?', input: undefined });
        }
      }
    }
    return this.resultIds.has(id);
  }

  /** The costliest tool results, most expensive first. */
  top(file: string, n = OFFENDERS_SHOWN): Offender[] {
    this.settle(0);
    return [...this.rows.entries()]
      .sort((a, b) => ranked(b[1].dollars) - ranked(a[1].dollars))
      .slice(0, n)
      .map(([id, r]) => {
        const use = this.resultIds?.get(id);
        return {
          file,
          tool: use?.tool ?? '?',
          target: toolTarget(use?.input),
          tokens: Math.round(r.tokens),
          timesResent: Math.max(0, r.sent - 1),
          dollars: r.dollars,
        };
      });
  }
}
