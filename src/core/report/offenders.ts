/**
 * Top offenders: the tool results that cost the most over all the calls that
 * re-sent them, priced per call by where they sat in the prompt (read from
 * cache, written, or sent uncached) in the `none` replay of the bill.
 */
import { modelPrice } from '../models';
import type { ImportedSession } from '../session/types';
import type { Offender } from '../../protocol/report-types';
import type { BillBlock, BillStep } from './bill-model';

/** Prices are per million tokens. */
const PER_MILLION = 1_000_000;
/** Offenders listed per session and in the totals. */
export const OFFENDERS_SHOWN = 10;
/** Characters of a command or path shown. */
const TARGET_CHARS = 80;

/** The most telling input field of a tool call, shortened. */
export function toolTarget(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const o = input as Record<string, unknown>;
  for (const k of ['file_path', 'path', 'notebook_path', 'command', 'pattern', 'url', 'query', 'description', 'prompt']) {
    const v = o[k];
    if (typeof v === 'string' && v) return v.length > TARGET_CHARS ? `${v.slice(0, TARGET_CHARS - 1)}…` : v;
  }
  return '';
}

/** Cost (USD) of `tokens` sent at [start, start+tokens) in a call that read `read` tokens from cache and wrote up to `written`. */
export function spanCost(start: number, tokens: number, step: BillStep, price: { input: number; cacheRead: number; cacheWrite: number }): number {
  const end = start + tokens;
  const overlap = (a: number, b: number): number => Math.max(0, Math.min(end, b) - Math.max(start, a));
  const read = overlap(0, step.readTokens);
  const written = overlap(step.readTokens, step.writtenUpTo);
  const rest = tokens - read - written;
  return (read * price.cacheRead + written * price.cacheWrite + rest * price.input) / PER_MILLION;
}

/** Collects per tool result: size, times sent, dollars. */
export class OffenderTally {
  private readonly rows = new Map<string, { tokens: number; sent: number; dollars: number }>();
  private readonly price: { input: number; cacheRead: number; cacheWrite5m: number; cacheWrite1h: number };

  constructor(
    private readonly imp: ImportedSession,
    model: string,
  ) {
    this.price = modelPrice(model);
  }

  /** A span callback for {@link BillModel.step}; call `commit` with the step after it. */
  collect(): { span: (b: BillBlock, start: number, tokens: number) => void; commit: (step: BillStep, ttl: '5m' | '1h', billed: boolean) => void } {
    const spans: { id: string; start: number; tokens: number }[] = [];
    return {
      span: (b, start, tokens) => {
        if (b.logId && b.id === b.logId && this.isToolResult(b.logId)) spans.push({ id: b.logId, start, tokens });
      },
      commit: (step, ttl, billed) => {
        if (!billed) return;
        const p = { input: this.price.input, cacheRead: this.price.cacheRead, cacheWrite: ttl === '1h' ? this.price.cacheWrite1h : this.price.cacheWrite5m };
        for (const s of spans) {
          const row = this.rows.get(s.id) ?? { tokens: s.tokens, sent: 0, dollars: 0 };
          row.sent++;
          row.dollars += spanCost(s.start, s.tokens, step, p);
          this.rows.set(s.id, row);
        }
      },
    };
  }

  private resultIds?: Map<string, { tool: string; input: unknown }>;

  private isToolResult(id: string): boolean {
    if (!this.resultIds) {
      const uses = new Map<string, { tool: string; input: unknown }>();
      this.resultIds = new Map();
      for (const m of this.imp.messages) {
        for (const b of m.blocks) {
          if (b.param.type === 'tool_use') uses.set(b.param.id, { tool: b.param.name, input: b.param.input });
          else if (b.param.type === 'tool_result') this.resultIds.set(b.id, uses.get(b.param.tool_use_id) ?? { tool: b.toolName ?? '?', input: undefined });
        }
      }
    }
    return this.resultIds.has(id);
  }

  /** The costliest tool results, most expensive first. */
  top(file: string, n = OFFENDERS_SHOWN): Offender[] {
    return [...this.rows.entries()]
      .sort((a, b) => b[1].dollars - a[1].dollars)
      .slice(0, n)
      .map(([id, r]) => {
        const use = this.resultIds?.get(id);
        return { file, tool: use?.tool ?? '?', target: toolTarget(use?.input), tokens: Math.round(r.tokens), timesResent: Math.max(0, r.sent - 1), dollars: r.dollars };
      });
  }
}
