/**
 * Findings: what in the next request is worth a look, each with a one-click action
 * where one exists. Thresholds are named below with the reason next to them.
 */
import type { Finding, InspectorRow, RequestDiff } from '../../protocol';
import { quoteRewrite } from '../cache/break-even';
import { modelPrice } from '../models';
import type { CacheTtl } from '../api/wire';
import { toolResultText } from '../session/log';
import type { Session } from '../session/session';
import type { TokenAccountant } from '../tokens/types';
import { fmtTokens, fmtUsd } from '../../protocol/format';

/** A tool result this large (tokens) is worth trimming once it has been used: ~a 400-line file. */
export const LARGE_RESULT_TOKENS = 4000;
/** Most "large result" findings listed (the largest first). */
const MAX_LARGE = 8;
/** Share of the context window at which to mention, and to warn about, the size of the request. */
export const WINDOW_INFO = 0.5;
export const WINDOW_WARN = 0.8;
/** Repeated identical outputs below this size are not worth a finding. */
const MIN_REPEAT_TOKENS = 200;
/** Cache rewrites below the smallest cacheable prefix are noise. */
const MIN_INVALIDATED_TOKENS = 1024;
/** Most cache-invalidation findings listed (the costliest first). */
const MAX_INVALIDATIONS = 5;
/**
 * Most stale-read and most repeated-output findings listed (the costliest, in session
 * order): a long session re-reads hundreds of files, and a list that long is neither
 * readable nor cheap to update live (each recalibration changes every one's tokens).
 */
export const MAX_STALE = 12;
export const MAX_REPEATS = 12;

/** The `max` findings with the most tokens, in their original order. */
function costliest(list: Finding[], max: number): Finding[] {
  if (list.length <= max) return list;
  const keep = new Set([...list].sort((a, b) => (b.tokens ?? 0) - (a.tokens ?? 0)).slice(0, max));
  return list.filter((f) => keep.has(f));
}

const READ_TOOL = /read|view|cat\b|open/i;
const EDIT_TOOL = /edit|write|replace|patch|create|notebook/i;
const PATH_KEYS = ['file_path', 'path', 'filePath', 'file', 'notebook_path'] as const;

export interface FindingContext {
  session: Session;
  tokens: TokenAccountant;
  rows: readonly InspectorRow[];
  /** Tokens of the whole next request, and the window. */
  sentTokens: number;
  contextWindow: number;
  model: string;
  /** TTL of the session's breakpoints (default 5 minutes): the write price of a rewrite. */
  ttl?: CacheTtl;
  /** diffs[i]: recorded call i versus call i − 1. */
  diffs: readonly RequestDiff[];
  /** The next request versus the last recorded one. */
  nextDiff?: RequestDiff;
}

export function findings(c: FindingContext): Finding[] {
  return [
    ...windowFinding(c),
    ...largeResults(c),
    ...costliest(staleReads(c), MAX_STALE),
    ...costliest(repeatedOutputs(c), MAX_REPEATS),
    ...unusedTools(c),
    ...cacheInvalidations(c),
  ];
}

function windowFinding(c: FindingContext): Finding[] {
  const share = c.sentTokens / c.contextWindow;
  if (share < WINDOW_INFO) return [];
  const pct = Math.round(share * 100);
  return [
    {
      id: 'window',
      severity: share >= WINDOW_WARN ? 'warning' : 'info',
      message:
        `The next request uses ${pct}% of the ${fmtTokens(c.contextWindow)}-token context window ` +
        `(${fmtTokens(c.sentTokens)} tokens).`,
      blockIds: [],
      tokens: c.sentTokens,
      action: { kind: 'compact', label: 'Compact' },
    },
  ];
}

function largeResults(c: FindingContext): Finding[] {
  return c.rows
    .filter(
      (r) =>
        (r.kind === 'tool_result' || r.kind === 'observation') &&
        r.sent &&
        r.state === 'verbatim' &&
        r.tokens >= LARGE_RESULT_TOKENS,
    )
    .sort((a, b) => b.tokens - a.tokens)
    .slice(0, MAX_LARGE)
    .map((r) => ({
      id: `large:${r.blockId}`,
      severity: r.tokens >= 2 * LARGE_RESULT_TOKENS ? 'warning' : 'info',
      message:
        `Large ${r.tool ?? 'tool'} result at ${r.ref} is sent in full: ${fmtTokens(r.tokens)} tokens on every ` +
        'request.',
      blockIds: [r.blockId],
      tokens: r.tokens,
      action: { kind: 'trim', blockId: r.blockId, label: 'Trim' },
    }));
}

/** The file a tool call reads or writes, if its input names one. */
function pathOf(input: unknown): string | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const rec = input as Record<string, unknown>;
  for (const k of PATH_KEYS) if (typeof rec[k] === 'string' && rec[k]) return rec[k] as string;
  return undefined;
}

/** Reads whose content is stale: the file was read again later, or edited after the read. */
function staleReads(c: FindingContext): Finding[] {
  const reads = new Map<string, InspectorRow[]>();
  const stale = new Map<string, { rows: InspectorRow[]; reread: boolean; edited: boolean }>();
  const mark = (path: string, why: 'reread' | 'edited'): void => {
    const earlier = (reads.get(path) ?? []).filter((r) => r.sent && r.state === 'verbatim');
    if (!earlier.length) return;
    const s = stale.get(path) ?? { rows: [], reread: false, edited: false };
    for (const r of earlier) if (!s.rows.includes(r)) s.rows.push(r);
    s[why] = true;
    stale.set(path, s);
  };
  for (const r of c.rows) {
    const block = c.session.block(r.blockId);
    if (!block?.toolUseId || !block.toolName) continue;
    if (r.kind === 'tool_use' && EDIT_TOOL.test(block.toolName) && !READ_TOOL.test(block.toolName)) {
      const path = pathOf(block.param.type === 'tool_use' ? block.param.input : undefined);
      if (path) mark(path, 'edited');
    } else if (r.kind === 'tool_result' && READ_TOOL.test(block.toolName)) {
      const use = c.session.block(c.session.toolUseBlockId(block.toolUseId) ?? '');
      const path = pathOf(use?.param.type === 'tool_use' ? use.param.input : undefined);
      if (!path) continue;
      mark(path, 'reread');
      reads.set(path, [...(reads.get(path) ?? []), r]);
    }
  }
  return [...stale].map(([path, s]) => {
    const tokens = s.rows.reduce((n, r) => n + r.tokens, 0);
    const why =
      s.reread && s.edited ? 'read again and edited later' : s.reread ? 'read again later' : 'edited after it was read';
    const n = s.rows.length;
    return {
      id: `stale:${path}`,
      severity: tokens >= LARGE_RESULT_TOKENS ? 'warning' : 'info',
      message:
        `${path} was ${why}: ${n} outdated ${n === 1 ? 'copy is' : 'copies are'} still sent (${fmtTokens(tokens)} ` +
        'tokens).',
      blockIds: s.rows.map((r) => r.blockId),
      tokens,
      action: { kind: 'trim', blockId: s.rows[0].blockId, label: n > 1 ? 'Trim oldest' : 'Trim' },
    };
  });
}

/** Identical tool outputs sent more than once (e.g. the same `git status`). */
function repeatedOutputs(c: FindingContext): Finding[] {
  const seen = new Map<string, InspectorRow[]>();
  for (const r of c.rows) {
    if (r.kind !== 'tool_result' || !r.sent || r.state !== 'verbatim' || r.tokens < MIN_REPEAT_TOKENS) continue;
    const block = c.session.block(r.blockId);
    if (!block) continue;
    const text = toolResultText(block.param);
    seen.set(text, [...(seen.get(text) ?? []), r]);
  }
  const out: Finding[] = [];
  for (const rows of seen.values()) {
    if (rows.length < 2) continue;
    const earlier = rows.slice(0, -1);
    const tokens = earlier.reduce((n, r) => n + r.tokens, 0);
    out.push({
      id: `repeat:${rows[0].blockId}`,
      severity: 'info',
      message:
        `The same ${rows[0].tool ?? 'tool'} output is sent ${rows.length} times ` +
        `(${rows.map((r) => r.ref).join(', ')}); the earlier copies cost ${fmtTokens(tokens)} tokens.`,
      blockIds: earlier.map((r) => r.blockId),
      tokens,
      action: { kind: 'trim', blockId: earlier[0].blockId, label: 'Trim oldest' },
    });
  }
  return out;
}

function unusedTools(c: FindingContext): Finding[] {
  const tools = c.session.tools ?? [];
  if (!tools.length) return [];
  const used = new Set<string>();
  for (const m of c.session.messages)
    for (const b of m.blocks) if (b.kind === 'tool_use' && b.toolName) used.add(b.toolName);
  const unused = tools.filter((t) => !used.has(t.name));
  if (!unused.length) return [];
  const tokens = unused.reduce((n, t) => n + c.tokens.text(JSON.stringify(t)).tokens, 0);
  const names = unused.map((t) => t.name);
  const shown = names.length > 8 ? `${names.slice(0, 8).join(', ')} and ${names.length - 8} more` : names.join(', ');
  return [
    {
      id: 'unused-tools',
      severity: 'info',
      message:
        `${unused.length} of ${tools.length} tool definitions were never used (${shown}): ${fmtTokens(tokens)} ` +
        'tokens in every request.',
      blockIds: [],
      tokens,
    },
  ];
}

/**
 * Edits that broke the cached prefix and cost more in cache re-writes than they saved
 * in later reads, quoted by the one pricer (break-even.ts: the call with the edit versus
 * the same call without it, then the reads every later call saved).
 */
export interface Quote {
  readonly cost: number;
  readonly saved: number;
}

/** USD of a recorded break: its rewrite over reading, and what it saved on the `later` calls after it. */
export function invalidationQuote(d: RequestDiff, later: number, model: string, ttl: CacheTtl = '5m'): Quote {
  const q = quoteRewrite(d.invalidatedTokens, Math.max(0, d.savedTokens), ttl, later, modelPrice(model));
  return { cost: q.rewriteCost, saved: q.savingPerCall * later };
}

function cacheInvalidations(c: FindingContext): Finding[] {
  const p = modelPrice(c.model);
  const ttl = c.ttl ?? '5m';
  const calls = c.diffs.length;
  const out: { f: Finding; loss: number }[] = [];
  c.diffs.forEach((d, i) => {
    if (!d.cacheBreakAt || d.invalidatedTokens < MIN_INVALIDATED_TOKENS) return;
    // Calls recorded after this one (call numbers may not start at 0: a later epoch of a proxied session).
    const later = Math.max(0, calls - 1 - i);
    const { cost, saved } = invalidationQuote(d, later, c.model, ttl);
    if (cost <= saved) return;
    const since = `${later} later call${later === 1 ? '' : 's'}`;
    out.push({
      loss: cost - saved,
      f: {
        id: `invalidation:${d.call}`,
        severity: 'warning',
        message:
          `Call ${d.call} broke the cached prefix at ${d.cacheBreakAt}: re-writing ${fmtTokens(d.invalidatedTokens)} ` +
          `tokens cost ${fmtUsd(cost)} more than reading them, the edit saved ${fmtUsd(saved)} over the ${since}.`,
        blockIds: [],
        tokens: d.invalidatedTokens,
        call: d.call,
      },
    });
  });
  const listed = out
    .sort((a, b) => b.loss - a.loss)
    .slice(0, MAX_INVALIDATIONS)
    .map((x) => x.f);
  const n = c.nextDiff;
  if (n?.cacheBreakAt && n.invalidatedTokens >= MIN_INVALIDATED_TOKENS) {
    const saves = Math.max(0, n.savedTokens);
    const cost = quoteRewrite(n.invalidatedTokens, saves, ttl, 0, p).rewriteCost;
    listed.unshift({
      id: 'invalidation:next',
      severity: 'info',
      message:
        `The next request breaks the cached prefix at ${n.cacheBreakAt}: ${fmtTokens(n.invalidatedTokens)} tokens ` +
        `are re-written (${fmtUsd(cost)} over reading them), saving ${fmtTokens(saves)} tokens per later call.`,
      blockIds: [],
      tokens: n.invalidatedTokens,
      call: n.call,
    });
  }
  return listed;
}
