/**
 * An extractive digest of a range of messages that leaves the view: the user's prompts
 * (shortened) and the reference ids its tool results mentioned, so that a later step can
 * still name the file, hash or id it saw. No model call; deterministic; restorable (the
 * digest is the text of a summary overlay over the range).
 */
import { toolResultText } from '../session/log';
import type { Session } from '../session/session';
import type { ContentBlockParam } from '../session/types';
import { defaultRefsOf } from './refs';
import { TRIM_MARKER } from './summary-text';

export interface DigestOptions {
  /** Most reference ids listed. */
  maxRefs: number;
  /** Most user prompts quoted, and characters kept of each. */
  maxPrompts: number;
  promptChars: number;
}

export const DIGEST_DEFAULTS: DigestOptions = { maxRefs: 200, maxPrompts: 8, promptChars: 200 };

/**
 * What a digest over [from, to] collected; extended in place when a later digest covers more of the (immutable) log.
 */
interface Collected {
  to: number;
  /** Each ref with how many tool results mentioned it, in first-seen order. */
  readonly refs: Map<string, number>;
  /** Refs the model itself named in the range (its tool inputs and text): what it was working with. */
  readonly named: Set<string>;
  readonly prompts: string[];
  readonly maxPrompts: number;
  readonly promptChars: number;
}

/** Per session, per start position: the last collection (a window's cut moves forward call by call). */
const collected = new WeakMap<Session, Map<number, Collected>>();

function collect(session: Session, from: number, to: number, o: DigestOptions): Collected {
  let bySession = collected.get(session);
  if (!bySession) collected.set(session, (bySession = new Map()));
  let c = bySession.get(from);
  if (!c || c.to > to || c.maxPrompts !== o.maxPrompts || c.promptChars !== o.promptChars) {
    c = {
      to: from - 1,
      refs: new Map(),
      named: new Set(),
      prompts: [],
      maxPrompts: o.maxPrompts,
      promptChars: o.promptChars,
    };
    bySession.set(from, c);
  }
  for (let p = c.to + 1; p <= to; p++) {
    const m = session.messages[p];
    for (const b of m.blocks) {
      if (b.param.type === 'tool_result') {
        const param = b.param;
        // Extracted once per param object, shared with the tool result summaries (refs.ts).
        for (const r of defaultRefsOf(param, () => toolResultText(param))) c.refs.set(r, (c.refs.get(r) ?? 0) + 1);
      } else if (m.role === 'assistant' && (b.param.type === 'tool_use' || b.param.type === 'text')) {
        const param = b.param;
        for (const r of defaultRefsOf(param, () => namedText(param))) c.named.add(r);
      } else if (
        m.role === 'user' &&
        b.param.type === 'text' &&
        !b.param.text.startsWith('<') &&
        c.prompts.length < o.maxPrompts
      ) {
        const t = b.param.text.trim().replace(/\s+/g, ' ');
        if (t) c.prompts.push(t.length > o.promptChars ? `${t.slice(0, o.promptChars)}…` : t);
      }
    }
  }
  c.to = to;
  return c;
}

/** The text a model's block names things in: a tool call's string values, or its text. */
function namedText(param: ContentBlockParam): string {
  if (param.type === 'text') return param.text;
  if (param.type !== 'tool_use') return '';
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(param.input);
  return out.join('\n');
}

/** Lists longer than this are not folded (the fold compares every pair). */
const MAX_FOLDED = 1500;

interface Ranked {
  readonly ref: string;
  /** Tool results that mentioned it (or a ref it contains). */
  mentions: number;
  /** 1 when the model named it (or a ref it contains), else 0. */
  named: number;
}

/**
 * The refs in first-seen order, each with its rank; a ref another one contains (`cli/a.go` inside `/repo/cli/a.go`) is
 * folded into the longer one, which shows it anyway: one slot, and the longer one carries both ranks.
 */
function foldContained(
  list: readonly string[],
  refs: ReadonlyMap<string, number>,
  named: ReadonlySet<string>,
): Ranked[] {
  const ranked = list.map((ref) => ({ ref, mentions: refs.get(ref) ?? 0, named: named.has(ref) ? 1 : 0 }));
  if (ranked.length > MAX_FOLDED) return ranked;
  const byLength = [...ranked].sort((a, b) => b.ref.length - a.ref.length);
  const folded = new Set<Ranked>();
  for (let i = 0; i < byLength.length; i++) {
    const short = byLength[i];
    for (let j = 0; j < i; j++) {
      const long = byLength[j];
      if (folded.has(long) || long.ref.length === short.ref.length || !long.ref.includes(short.ref)) continue;
      long.mentions += short.mentions;
      long.named = Math.max(long.named, short.named);
      folded.add(short);
      break;
    }
  }
  return folded.size ? ranked.filter((r) => !folded.has(r)) : ranked;
}

/**
 * The digest of messages [from, to]; refs for which `shown` says yes are left out (the view
 * shows them elsewhere: an earlier digest, the kept text). Work grows with what is new since the last digest from
 * the same start (a window's digest is asked for again on every call while its cut moves).
 */
export function digestNote(
  session: Session,
  from: number,
  to: number,
  what: string,
  o: DigestOptions = DIGEST_DEFAULTS,
  shown?: (ref: string) => boolean,
): { text: string; refs: readonly string[] } {
  const { refs, named, prompts } = collect(session, from, to, o);
  const list = foldContained(shown ? [...refs.keys()].filter((r) => !shown(r)) : [...refs.keys()], refs, named);
  // Over the limit: the refs the model itself named first (a step that used a path or an id is the best sign a later
  // step will use it again), then those more results mentioned (what the steps kept coming back to), then the most
  // recent; listed in first-seen order.
  const kept =
    list.length <= o.maxRefs
      ? list.map((x) => x.ref)
      : list
          .map((x, i) => ({ ...x, i }))
          .sort((a, b) => b.named - a.named || b.mentions - a.mentions || b.i - a.i)
          .slice(0, o.maxRefs)
          .sort((a, b) => a.i - b.i)
          .map((x) => x.ref);
  const parts = [`${TRIM_MARKER}: ${what}; the originals are restorable]`];
  if (prompts.length) parts.push(`user asked: ${prompts.map((p) => `"${p}"`).join('; ')}`);
  if (kept.length)
    parts.push(
      `refs seen: ${kept.join(' ')}${list.length > kept.length ? ` (+${list.length - kept.length} more)` : ''}`,
    );
  return { text: parts.join('\n'), refs: kept };
}

/** The text of {@link digestNote} listing every ref. */
export function buildDigest(
  session: Session,
  from: number,
  to: number,
  what: string,
  o: DigestOptions = DIGEST_DEFAULTS,
): string {
  return digestNote(session, from, to, what, o).text;
}
