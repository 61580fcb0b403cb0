/**
 * Blocks as feature vectors for calibration: raw cl100k tokens per content
 * class plus structural counts (messages, blocks, tool blocks). Claude's count
 * of a delta is modelled as a linear function of these (see calibrator.ts).
 * Images and PDFs are a fixed part, already in Claude tokens (media.ts).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, MessageParam } from '../session/types';
import type { ContentClass } from './types';
import { imageTokens, pdfTokens } from './media';
import { RawCounter } from './encoder';

/** Raw-token classes, in feature order. */
export const RAW_CLASSES: readonly ContentClass[] = ['text', 'tool_use', 'tool_result', 'thinking', 'code', 'other'];
const CLASS_INDEX: Readonly<Record<ContentClass, number>> = {
  text: 0,
  tool_use: 1,
  tool_result: 2,
  thinking: 3,
  code: 4,
  other: 5,
};
/** Per-message structural overhead (role turn markers). */
export const F_MESSAGES = 6;
/** Per-block structural overhead (block delimiters). */
export const F_BLOCKS = 7;
/** Extra per tool_use / tool_result block (the `toolu_…` id and tool-call markup). */
export const F_TOOL_BLOCKS = 8;
/** Extra per thinking block (measured from the thinking the API drops at a new turn). */
export const F_THINKING_BLOCKS = 9;
export const N_FEATURES = 10;
export const FEATURE_NAMES: readonly string[] = [
  ...RAW_CLASSES,
  'messages',
  'blocks',
  'tool_blocks',
  'thinking_blocks',
];

export function classIndex(cls: ContentClass): number {
  return CLASS_INDEX[cls];
}

/** A linear-model input: feature values plus tokens that are already exact-ish (media). */
export class Features {
  readonly x = new Float64Array(N_FEATURES);
  fixed = 0;
  /** Raw counts in here estimated from characters (RawCounter.quick), not encoded: 0 when all are exact. */
  provisional = 0;

  add(other: Features, sign = 1): this {
    for (let i = 0; i < N_FEATURES; i++) this.x[i] += sign * other.x[i];
    this.fixed += sign * other.fixed;
    this.provisional += other.provisional;
    return this;
  }

  rawTotal(): number {
    let s = 0;
    for (let i = 0; i < RAW_CLASSES.length; i++) s += this.x[i];
    return s;
  }

  /** No content: no blocks and no media (message overheads alone do not make a sample). */
  isEmpty(): boolean {
    return this.fixed === 0 && this.x.every((v, i) => v === 0 || i === F_MESSAGES);
  }
}

/** Lines of a numbered listing (`cat -n`, Claude Code's Read: `   12→…`). */
const NUMBERED_LINE = /^\s*\d+(→|\t)/;
/** Share of numbered lines among the first lines that marks a file listing. */
const NUMBERED_SHARE = 0.6;
/** Lines inspected by the code heuristic (enough to decide, cheap on 200 KB outputs). */
const SNIFF_LINES = 40;
/** Share of code punctuation among non-space chars above which text reads as code (prose is ~2–3%). */
const CODE_PUNCT_SHARE = 0.07;
const CODE_PUNCT = /[{}()[\];=<>]/g;

/** Tool output that is source code or a numbered file listing tokenizes differently from prose/logs. */
export function looksLikeCode(text: string): boolean {
  if (text.length < 80) return false;
  const head = text.slice(0, 4000);
  const lines = head.split('\n', SNIFF_LINES).filter((l) => l.trim().length > 0);
  if (lines.length >= 3 && lines.filter((l) => NUMBERED_LINE.test(l)).length / lines.length >= NUMBERED_SHARE)
    return true;
  const nonSpace = head.replace(/\s+/g, '').length;
  const punct = head.match(CODE_PUNCT)?.length ?? 0;
  return lines.length >= 3 && nonSpace > 0 && punct / nonSpace >= CODE_PUNCT_SHARE;
}

/** What the model reads of a tool call: its name and arguments as JSON (key order as recorded). */
export function toolUseText(b: Anthropic.ToolUseBlockParam): string {
  return `${b.name} ${JSON.stringify(b.input ?? {})}`;
}

/** Raw cl100k tokens of a text of a class (the class lets an estimate from characters use its ratio). */
export type RawCount = (text: string, cls: ContentClass) => number;

function addRaw(f: Features, cls: ContentClass, text: string, raw: RawCount): void {
  f.x[CLASS_INDEX[cls]] += raw(text, cls);
}

type ToolResultPart = Exclude<Anthropic.ToolResultBlockParam['content'], string | undefined>[number];

function addToolResultPart(f: Features, part: ToolResultPart, raw: RawCount): void {
  switch (part.type) {
    case 'text': {
      addRaw(f, looksLikeCode(part.text) ? 'code' : 'tool_result', part.text, raw);
      return;
    }
    case 'image':
      f.fixed += imageTokens(part);
      return;
    case 'document':
      addDocument(f, part, raw);
      return;
    default:
      addRaw(f, 'other', JSON.stringify(part), raw);
  }
}

function addDocument(f: Features, b: Anthropic.DocumentBlockParam, raw: RawCount): void {
  const pdf = pdfTokens(b);
  if (pdf !== undefined) {
    f.fixed += pdf;
    return;
  }
  const src = b.source;
  if (src.type === 'text') addRaw(f, 'text', src.data, raw);
  else if (src.type === 'content') {
    if (typeof src.content === 'string') addRaw(f, 'text', src.content, raw);
    else
      for (const c of src.content) {
        if (c.type === 'text') addRaw(f, 'text', c.text, raw);
        else f.fixed += imageTokens(c);
      }
  }
  if (b.title) addRaw(f, 'text', b.title, raw);
  if (b.context) addRaw(f, 'text', b.context, raw);
}

/** Add one block's features (raw tokens by class, one block, tool-block overhead, media). */
export function addBlockFeatures(f: Features, b: ContentBlockParam, raw: RawCount): Features {
  f.x[F_BLOCKS] += 1;
  switch (b.type) {
    case 'text':
      addRaw(f, 'text', b.text, raw);
      break;
    case 'thinking':
      f.x[F_THINKING_BLOCKS] += 1;
      addRaw(f, 'thinking', b.thinking, raw);
      break;
    case 'redacted_thinking':
      f.x[F_THINKING_BLOCKS] += 1;
      // Encrypted: its cl100k count says nothing about Claude's; treat as opaque "other".
      addRaw(f, 'other', b.data, raw);
      break;
    case 'tool_use':
      f.x[F_TOOL_BLOCKS] += 1;
      addRaw(f, 'tool_use', toolUseText(b), raw);
      break;
    case 'tool_result': {
      f.x[F_TOOL_BLOCKS] += 1;
      const c = b.content;
      if (typeof c === 'string') addRaw(f, looksLikeCode(c) ? 'code' : 'tool_result', c, raw);
      else if (c) for (const part of c) addToolResultPart(f, part, raw);
      break;
    }
    case 'image':
      f.fixed += imageTokens(b);
      break;
    case 'document':
      addDocument(f, b, raw);
      break;
    default:
      addRaw(f, 'other', JSON.stringify(b), raw);
  }
  return f;
}

/** The field holding a block's content: compared on cache hits so a mutated block is not served stale. */
function primaryContent(b: ContentBlockParam): unknown {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'thinking':
      return b.thinking;
    case 'tool_use':
      return b.input;
    case 'tool_result':
      return b.content;
    case 'image':
    case 'document':
      return b.source;
    default:
      return b;
  }
}

/**
 * Block features with two caches: raw counts by content hash (RawCounter) and
 * whole-block features by block object (log blocks are immutable), so a
 * block's JSON is built once and per-turn work grows only with new content.
 * With a defer policy on the raw counter, big texts are estimated from their
 * characters (features marked `provisional`); such features are built again once
 * the counter refined any estimate, or when asked outside a deferring section.
 */
export class FeatureExtractor {
  private readonly byBlock = new WeakMap<object, { content: unknown; features: Features; generation: number }>();
  private readonly rawCount: RawCount;
  /** Estimates made while building the current features. */
  private estimates = 0;

  constructor(readonly raw: RawCounter = new RawCounter()) {
    this.rawCount = (t, cls) => {
      const q = raw.quick(t, cls);
      if (!q.exact) this.estimates++;
      return q.tokens;
    };
  }

  /** Features of one block. Shared instance: do not mutate (add it into your own accumulator). */
  block(b: ContentBlockParam): Features {
    const content = primaryContent(b);
    const hit = this.byBlock.get(b);
    // A block object whose content was replaced (e.g. a streaming text block) is counted again.
    if (
      hit &&
      hit.content === content &&
      (hit.features.provisional === 0 || (this.raw.defer !== undefined && hit.generation === this.raw.generation))
    )
      return hit.features;
    const features = this.measure((f) => addBlockFeatures(f, b, this.rawCount));
    this.byBlock.set(b, { content, features, generation: this.raw.generation });
    return features;
  }

  /** Features of free text of one class (uncached beyond the raw count). */
  text(text: string, cls: ContentClass): Features {
    return this.measure((f) => addRaw(f, cls, text, this.rawCount));
  }

  /** Sum of blocks plus `messages` message overheads. */
  blocks(list: Iterable<ContentBlockParam>, messages = 0, into = new Features()): Features {
    for (const b of list) into.add(this.block(b));
    into.x[F_MESSAGES] += messages;
    return into;
  }

  /** One message: its blocks (minus `skip`, e.g. thinking the API drops) and one message overhead. */
  message(m: MessageParam, into = new Features(), skip?: ReadonlySet<ContentBlockParam>): Features {
    into.x[F_MESSAGES] += 1;
    if (typeof m.content === 'string') {
      if (m.content.length > 0) {
        into.add(this.text(m.content, 'text'));
        into.x[F_BLOCKS] += 1;
      }
    } else {
      for (const b of m.content) if (!skip?.has(b)) into.add(this.block(b));
    }
    return into;
  }

  private measure(fill: (f: Features) => void): Features {
    const before = this.estimates;
    const f = new Features();
    fill(f);
    f.provisional = this.estimates - before;
    return f;
  }
}
