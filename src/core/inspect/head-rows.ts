/**
 * The head of the next request as rows (issue 17): every tool definition and system block
 * with its text, tokens, whether the next request reads it from the cache, whether a
 * breakpoint sits on it, and for tools how often the session used them; a definition never
 * used is priced over the session's calls (at the cache-read price: the least it cost).
 */
import { withoutCacheControl } from '../api/cache-rules';
import type { HeadResult, HeadRow } from '../../protocol/head';
import { costOf } from '../cache/cost';
import type { PreparedCall } from '../engine/context-engine';
import type { Session } from '../session/session';
import type { CallHistory } from './history';

/** Characters of a block's text sent to the webview. */
export const HEAD_TEXT_LIMIT = 20_000;

function hasBreakpoint(param: object): boolean {
  return (
    typeof (param as { cache_control?: unknown }).cache_control === 'object' &&
    (param as { cache_control?: unknown }).cache_control !== null
  );
}

function textOf(param: object, section: 'tools' | 'system'): string {
  if (section === 'system') {
    const t = (param as { text?: unknown }).text;
    return typeof t === 'string' ? t : JSON.stringify(param);
  }
  return JSON.stringify(withoutCacheControl(param), null, 2);
}

/** The session's own system block or tool definition at `index` (what the client sent), or an empty object. */
function ownHead(session: Session, section: 'tools' | 'system', index: number): object {
  if (section === 'tools') return session.tools?.[index] ?? {};
  return Array.isArray(session.system) ? (session.system[index] ?? {}) : {};
}

/** How often each tool was called in the session. */
function toolUses(session: Session): Map<string, number> {
  const uses = new Map<string, number>();
  for (const m of session.messages)
    for (const b of m.blocks)
      if (b.kind === 'tool_use' && b.toolName) uses.set(b.toolName, (uses.get(b.toolName) ?? 0) + 1);
  return uses;
}

export function headRows(
  session: Session,
  prepared: PreparedCall,
  history: CallHistory,
  model: string,
  now: number,
): HeadResult {
  const priced = history.priceNext(prepared.body, prepared.blockMap, now);
  const uses = toolUses(session);
  const calls = history.length;
  const counters = { tools: 0, system: 0 };
  const rows: HeadRow[] = [];
  priced.flat.forEach((b, i) => {
    if (b.section !== 'tools' && b.section !== 'system') return;
    const text = textOf(b.param, b.section);
    const tokens = history.tokensOf(b.param);
    const row: HeadRow = {
      ref: `${b.section}.${counters[b.section]++}`,
      section: b.section,
      text: text.slice(0, HEAD_TEXT_LIMIT),
      truncated: text.length > HEAD_TEXT_LIMIT,
      tokens,
      cached: i <= priced.readPosition,
      // Where the client put its markers (a proxied session keeps its system and tools as sent), or the request's own.
      breakpoint: hasBreakpoint(b.param) || hasBreakpoint(ownHead(session, b.section, counters[b.section] - 1)),
    };
    if (b.section === 'tools') {
      const name = (b.param as { name?: unknown }).name;
      row.name = typeof name === 'string' ? name : '?';
      row.uses = uses.get(row.name) ?? 0;
      if (row.uses === 0 && calls > 0)
        row.unusedCost = costOf(
          { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: tokens * calls },
          model,
        ).total;
    }
    rows.push(row);
  });
  return { rows, calls };
}
