/**
 * What the summarizer reads and what the overlay says: the transcript of a range
 * as the model currently sees it (trims and earlier summaries applied, thinking
 * left out, long blocks cut to a budget), the request around it, the facts
 * parser, and the layout of a summary that carries earlier memory.
 */
import { toolResultText } from '../../session/log';
import type { Session } from '../../session/session';
import type { ContentBlockParam } from '../../session/types';
import { summaryText } from '../../request/render';
import type { CompressionKind, Concept } from './options';
import {
  FACTS_SYSTEM,
  MEMORY_CLOSE,
  MEMORY_INTRO,
  MEMORY_OPEN,
  MEMORY_SEPARATOR,
  MEMORY_TAG,
  NO_FACT,
  SUMMARY_SYSTEM,
  TRANSCRIPT_TAG,
  cutNote,
  factsInstruction,
  omittedNote,
  summaryInstruction,
} from './prompts';
import type { SummaryRequest } from './summarizer';

/** Conservative characters per token for budgeting the transcript (Claude averages ~3.5 on code and prose). */
const CHARS_PER_TOKEN = 3;
/** Longest block shown before the budget forces less; halved until the transcript fits. */
const MAX_BLOCK_CHARS = 12_000;
/** Shortest cut a block is reduced to before whole old messages are left out instead. */
const MIN_BLOCK_CHARS = 400;

interface Entry {
  readonly pos: number;
  readonly role: string;
  readonly parts: readonly string[];
}

/** One block as transcript text ('' = not shown). */
function partText(b: ContentBlockParam): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'tool_use':
      return `[tool call ${b.name} ${b.id}] ${JSON.stringify(b.input)}`;
    case 'tool_result':
      return `[tool result ${b.tool_use_id}${b.is_error ? ' ERROR' : ''}] ${toolResultText(b)}`;
    case 'thinking':
    case 'redacted_thinking':
      return '';
    default:
      return `[${b.type}]`;
  }
}

/** Messages [from, to] as the model sees them now; summaries in `skip` (carried memory) are left out. */
function entries(session: Session, from: number, to: number, skip: ReadonlySet<string>): Entry[] {
  const out: Entry[] = [];
  for (let p = from; p <= to; p++) {
    const r = session.resolveMessage(p);
    if (r.summaryStart) {
      if (!skip.has(r.summaryStart.id)) out.push({ pos: p, role: 'user', parts: [summaryText(r.summaryStart)] });
      continue;
    }
    const parts: string[] = [];
    for (const b of r.blocks) {
      if (!b.sent) continue;
      const t = partText(b.sent);
      if (t.trim()) parts.push(t);
    }
    if (parts.length) out.push({ pos: p, role: r.message.role, parts });
  }
  return out;
}

function cut(t: string, max: number): string {
  return t.length <= max ? t : `${t.slice(0, max)}${cutNote(t.length - max)}`;
}

/**
 * The transcript of messages [from, to] within `maxTokens`: long blocks are cut first
 * (halving the per-block limit), then the oldest messages are left out. Deterministic.
 */
export function transcript(
  session: Session,
  from: number,
  to: number,
  skip: ReadonlySet<string>,
  maxTokens: number,
): { text: string; messages: number } {
  const all = entries(session, from, to, skip);
  const budget = maxTokens * CHARS_PER_TOKEN;
  const size = (list: readonly Entry[], max: number): number =>
    list.reduce((n, e) => n + e.parts.reduce((k, t) => k + Math.min(t.length, max), 0), 0);
  let max = MAX_BLOCK_CHARS;
  while (max > MIN_BLOCK_CHARS && size(all, max) > budget) max = Math.max(MIN_BLOCK_CHARS, Math.floor(max / 2));
  let first = 0;
  let total = size(all, max);
  while (total > budget && first < all.length - 1) total -= size([all[first++]], max);
  const lines: string[] = [`<${TRANSCRIPT_TAG}>`];
  if (first > 0) lines.push(omittedNote(first));
  for (const e of all.slice(first)) {
    lines.push(`<message n="${e.pos}" role="${e.role}">`, ...e.parts.map((t) => cut(t, max)), '</message>');
  }
  lines.push(`</${TRANSCRIPT_TAG}>`);
  return { text: lines.join('\n'), messages: all.length };
}

export interface RequestInput {
  readonly kind: CompressionKind;
  readonly transcript: string;
  /** Visible messages in the transcript. */
  readonly messages: number;
  readonly memory: readonly string[];
  readonly concepts: readonly Concept[];
  readonly model: string;
  readonly maxTokens: number;
}

/** The summarization request: one user message (memory, transcript, instruction) under the kind's system prompt. */
export function summaryRequest(i: RequestInput): SummaryRequest {
  const parts: string[] = [];
  if (i.memory.length) parts.push(`${MEMORY_INTRO}\n<${MEMORY_TAG}>\n${i.memory.join('\n\n')}\n</${MEMORY_TAG}>`);
  parts.push(i.transcript);
  if (i.kind === 'retrieve-facts') parts.push(factsInstruction(i.concepts));
  else parts.push(summaryInstruction(i.messages, i.kind === 'last-n-messages' ? i.messages : undefined));
  return {
    system: i.kind === 'retrieve-facts' ? FACTS_SYSTEM : SUMMARY_SYSTEM,
    messages: [{ role: 'user', content: [{ type: 'text', text: parts.join('\n\n') }] }],
    maxTokens: i.maxTokens,
    model: i.model,
  };
}

const norm = (s: string): string => s.replace(/[`*_]/g, '').trim().toLowerCase();

/**
 * Facts per concept keyword from the answer (`## keyword` headings, `-`/`*`/`1.` items).
 * Lenient about decoration, strict about content: `NONE` and unknown headings are ignored,
 * a `single` concept keeps its first fact.
 */
export function parseFacts(answer: string, concepts: readonly Concept[]): Map<string, string[]> {
  const byLength = [...concepts].sort((a, b) => b.keyword.length - a.keyword.length);
  const out = new Map<string, string[]>();
  let current: Concept | undefined;
  for (const raw of answer.split('\n')) {
    const line = raw.trim();
    const heading = /^#{1,6}\s+(.+)$/.exec(line);
    if (heading) {
      const h = norm(heading[1]);
      current = byLength.find(
        (c) =>
          h === norm(c.keyword) ||
          h.startsWith(`${norm(c.keyword)} `) ||
          h.startsWith(`${norm(c.keyword)}:`) ||
          h.startsWith(`${norm(c.keyword)}(`),
      );
      continue;
    }
    const item = /^(?:[-*•]|\d+[.)])\s+(.+)$/.exec(line);
    if (!current || !item) continue;
    const fact = item[1].trim();
    if (!fact || NO_FACT.test(fact)) continue;
    const list = out.get(current.keyword) ?? [];
    if (current.factType === 'single' && list.length) continue;
    if (!list.includes(fact)) list.push(fact);
    out.set(current.keyword, list);
  }
  return out;
}

/** The facts list an overlay carries (concept order), or undefined when nothing was found. */
export function renderFacts(
  header: string,
  concepts: readonly Concept[],
  facts: ReadonlyMap<string, readonly string[]>,
): string | undefined {
  const lines = [header];
  for (const c of concepts) {
    const list = facts.get(c.keyword);
    if (!list?.length) continue;
    lines.push(`## ${c.keyword} (${c.description})`, ...list.map((f) => `- ${f}`));
  }
  return lines.length > 1 ? lines.join('\n') : undefined;
}

/** A summary text that carries earlier memory verbatim ahead of its own body. */
export function composeSummary(memory: readonly string[], body: string): string {
  if (!memory.length) return body;
  return [MEMORY_OPEN, memory.join(`\n${MEMORY_SEPARATOR}\n`), MEMORY_CLOSE, body].join('\n');
}

/** The memory a summary text hands on: what it carried, then its own body (flat, oldest first). */
export function memoryOf(text: string): string[] {
  if (!text.startsWith(`${MEMORY_OPEN}\n`)) return [text];
  const close = text.indexOf(`\n${MEMORY_CLOSE}\n`);
  if (close < 0) return [text];
  const carried = text.slice(MEMORY_OPEN.length + 1, close).split(`\n${MEMORY_SEPARATOR}\n`);
  return [...carried, text.slice(close + MEMORY_CLOSE.length + 2)];
}
