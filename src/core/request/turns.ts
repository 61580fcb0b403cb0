/**
 * Turns of the assembler: rendered messages grouped by role, sharing the rendered block
 * arrays until a repair has to change one (copy on write). Small helpers over them.
 */
import type { RenderedMessage, SentBlock } from './render';
import type { Role } from '../session/types';
import { sameBlock } from '../api/blocks';

export interface Turn {
  role: Role;
  blocks: readonly SentBlock[];
  /** blocks is this turn's own array (else it is a rendered message's, shared with the cache). */
  own: boolean;
  /** The rendered message(s) the turn came from (undefined for a synthetic summary turn). */
  source: RenderedMessage | undefined;
  more: RenderedMessage[] | undefined;
  unanswered: boolean;
  /** The one response whose thinking this (assistant) turn carries. */
  thinkingFrom: RenderedMessage | undefined;
  /** Index of `source` in the rendered list (-1: a turn the assembler made). */
  start: number;
  /** Where each pass stood when it reached this turn (the assembler's checkpoints, assemble-resume.ts). */
  marks?: TurnMarks;
}

/** Per pass: the repairs made and pair questions asked before the pass reached a turn. */
export interface TurnMarks {
  readonly repairs: number[];
  readonly queries: number[];
  /** Summaries emitted before the turn (the collect pass). */
  summaries: number;
  /** Tool_use ids the pairing pass had seen (in this run) before the turn. */
  uses?: number;
}

/**
 * Params the assembler makes anew on every call (synthetic results, a summary's text, a result
 * sent as text). A message holding one is a new object on every call: whatever compares messages
 * or counts tokens by object sees it as new, call after call, as it always has.
 */
const freshParams = new WeakSet<object>();

export function freshBlock(b: SentBlock): SentBlock {
  freshParams.add(b.param);
  return b;
}

/** A new copy of a param made anew on every call (the copy is one too). */
export function freshCopy<T extends object>(param: T): T {
  const copy = { ...param };
  freshParams.add(copy);
  return copy;
}

export function isFresh(param: object): boolean {
  return freshParams.has(param);
}

export function turnOf(r: RenderedMessage, start: number): Turn {
  return {
    start,
    role: r.role,
    blocks: r.blocks,
    own: false,
    source: r,
    more: undefined,
    unanswered: r.unansweredToolUses,
    thinkingFrom: r.originalThinking.length ? r : undefined,
  };
}

export function userTurn(blocks: SentBlock[]): Turn {
  return {
    start: -1,
    role: 'user',
    blocks,
    own: true,
    source: undefined,
    more: undefined,
    unanswered: false,
    thinkingFrom: undefined,
  };
}

/** Same visible blocks, byte for byte: a response recorded twice. */
export function sameVisible(a: Turn, b: Turn): boolean {
  const x = a.blocks.filter((k) => !k.hidden);
  const y = b.blocks.filter((k) => !k.hidden);
  return x.length === y.length && x.every((k, i) => sameBlock(k.param, y[i].param));
}

export function sourcesOf(t: Turn): RenderedMessage[] {
  const out = t.source ? [t.source] : [];
  return t.more ? out.concat(t.more) : out;
}

/** Small linear scans beat Set allocation for the usual handful of tool blocks per message. */
export function hasToolResult(t: Turn | undefined, id: string): boolean {
  if (t) for (const b of t.blocks) if (b.param.type === 'tool_result' && b.param.tool_use_id === id) return true;
  return false;
}

export function hasToolUse(t: Turn | undefined, id: string): boolean {
  if (t) for (const b of t.blocks) if (b.param.type === 'tool_use' && b.param.id === id) return true;
  return false;
}

export function hasToolResultBefore(blocks: readonly SentBlock[], end: number, id: string): boolean {
  for (let k = 0; k < end; k++) {
    const p = blocks[k].param;
    if (p.type === 'tool_result' && p.tool_use_id === id) return true;
  }
  return false;
}

export function mutable(t: Turn): SentBlock[] {
  if (!t.own) {
    t.blocks = [...t.blocks];
    t.own = true;
  }
  return t.blocks as SentBlock[];
}

export function setBlocks(t: Turn, blocks: SentBlock[]): void {
  t.blocks = blocks;
  t.own = true;
}

export function visibleCount(t: Turn): number {
  let n = 0;
  for (const b of t.blocks) if (!b.hidden) n++;
  return n;
}

export function visibleIds(t: Turn): string[] {
  return t.blocks.filter((b) => !b.hidden).map((b) => b.id);
}
