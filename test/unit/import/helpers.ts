/** Test helpers for the importers: where the shared transcripts live, and an independent reading of raw JSONL. */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { runReplay } from '../../../src/cli/replay';
import { replayAll } from '../../../src/core/engine/replay';
import { validateRequest } from '../../../src/core/request/validate';
import type { ImportedSession } from '../../../src/core/session/types';

/**
 * Real transcripts copied into test/fixtures/transcripts (see NOTICE.md there), from the repo root (tests run with cwd
 * = repo root).
 */
export const TRANSCRIPTS = path.resolve(process.cwd(), 'test/fixtures/transcripts');
export const M_CLAUDE = path.join(TRANSCRIPTS, 'm-claude');
export const FIXTURES = path.resolve(process.cwd(), 'test/fixtures');

export function mClaude(name: string): string {
  const hit = readdirSync(M_CLAUDE).find((f) => f.startsWith(name));
  if (!hit) throw new Error(`no transcript ${name} in ${M_CLAUDE}`);
  return path.join(M_CLAUDE, hit);
}

export function allMClaude(): string[] {
  return readdirSync(M_CLAUDE)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => path.join(M_CLAUDE, f));
}

export interface RawLine {
  line: number;
  rec: Record<string, unknown>;
}

export interface RawMsg {
  id?: string;
  model?: string;
  content: unknown;
  usage?: unknown;
}

/** Every parseable line with its 1-based number; unparseable line numbers separately. */
export function rawLines(file: string): { lines: RawLine[]; bad: number[] } {
  const lines: RawLine[] = [];
  const bad: number[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      try {
        lines.push({ line: i + 1, rec: JSON.parse(text) as Record<string, unknown> });
      } catch {
        bad.push(i + 1);
      }
    });
  return { lines, bad };
}

export function msgOf(l: RawLine): RawMsg {
  return l.rec.message as RawMsg;
}

/**
 * Conversation lines the import should use: user/assistant with a message, sidechains dropped unless the file is all
 * sidechain.
 */
export function conversationLines(file: string): RawLine[] {
  const conv = rawLines(file).lines.filter(
    (l) => (l.rec.type === 'user' || l.rec.type === 'assistant') && l.rec.message,
  );
  const hasMain = conv.some((l) => l.rec.isSidechain !== true);
  return conv.filter((l) => !hasMain || l.rec.isSidechain !== true);
}

/** Distinct non-synthetic assistant message.ids, in file order: the expected calls. */
export function expectedCallIds(file: string): string[] {
  const ids: string[] = [];
  for (const l of conversationLines(file)) {
    const m = msgOf(l);
    if (l.rec.type !== 'assistant' || m.model === '<synthetic>' || typeof m.id !== 'string') continue;
    if (!ids.includes(m.id)) ids.push(m.id);
  }
  return ids;
}

/** The raw content of a line as a block list (strings become one text block). */
export function rawBlocks(l: RawLine): unknown[] {
  const c = msgOf(l).content;
  if (typeof c === 'string') return c ? [{ type: 'text', text: c }] : [];
  return c as unknown[];
}

/**
 * Every tool_use is answered by a tool_result in the very next message, and every tool_result answers the message
 * before it.
 */
export function pairing(s: ImportedSession): { uses: number; answered: number; orphans: number } {
  let uses = 0;
  let answered = 0;
  let orphans = 0;
  s.messages.forEach((m, i) => {
    const ids = m.blocks.filter((b) => b.kind === 'tool_use').map((b) => b.toolUseId);
    uses += ids.length;
    const next = new Set(s.messages[i + 1]?.blocks.filter((b) => b.kind === 'tool_result').map((b) => b.toolUseId));
    answered += ids.filter((id) => next.has(id)).length;
    const prev = new Set(s.messages[i - 1]?.blocks.filter((b) => b.kind === 'tool_use').map((b) => b.toolUseId));
    orphans += m.blocks.filter((b) => b.kind === 'tool_result' && !prev.has(b.toolUseId)).length;
  });
  return { uses, answered, orphans };
}

/** Replay every call with `strategy` and collect what the validator refuses. */
export function refusedRequests(s: ImportedSession, strategy: string): { requests: number; refused: string[] } {
  let requests = 0;
  const refused: string[] = [];
  replayAll(s, { strategy }, ({ call: c, prepared }) => {
    requests++;
    for (const v of validateRequest(prepared.body, { model: prepared.body.model }))
      refused.push(`call ${c.index}: ${v.message}`);
  });
  return { requests, refused };
}

/** The replayed request of every call (`trimline replay FILE --strategy none --jsonl`). */
export async function replayNone(file: string): Promise<{ call: number; request: { messages: unknown[] } }[]> {
  const chunks: string[] = [];
  const out = new Writable({
    write(c: Buffer, _e, cb) {
      chunks.push(String(c));
      cb();
    },
  });
  await runReplay(file, { strategy: 'none', config: {} }, out);
  return chunks
    .join('')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { call: number; request: { messages: unknown[] } });
}

/**
 * The value without `cache_control` keys: the transcript does not record the client's
 * breakpoints, and the replay places its own (the cache planner's choice, not the history).
 */
export function withoutCacheControl(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutCacheControl);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => k !== 'cache_control')
      .map(([k, x]) => [k, withoutCacheControl(x)]),
  );
}
