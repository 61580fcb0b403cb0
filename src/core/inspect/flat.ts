/**
 * A request body as one flat list of block positions, in the order the prompt cache
 * sees them (tools, system blocks, then every message content block), each with the id
 * of what it came from. Shared by the call diff, the pricing trace and the composition.
 */
import type { BlockMap } from '../request/build';
import type { RequestBody } from '../api/wire';
import type { Session } from '../session/session';
import type { ContentBlockParam } from '../session/types';
import type { TokenAccountant } from '../tokens/types';

export type Section = 'tools' | 'system' | 'messages';

export interface FlatBlock {
  /** Log block id, a synthetic id (`summary:…`), `tool:<name>` or `system:<i>`. */
  readonly id: string;
  readonly section: Section;
  readonly param: object;
}

/** Block types the token accountant counts as content; anything else is counted as its JSON. */
const CONTENT_TYPES: ReadonlySet<string> = new Set([
  'text',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'image',
  'document',
]);

/** Tokens of one flat block, counted as the cost ledger counts them (so totals agree). */
export function flatTokens(tokens: TokenAccountant, param: object): number {
  const t = (param as { type?: unknown }).type;
  if (typeof t === 'string' && CONTENT_TYPES.has(t)) return tokens.block(param as ContentBlockParam).tokens;
  return tokens.text(JSON.stringify(param)).tokens;
}

/** Every block position of a request, in cache order (string content becomes one text block). */
export function flattenRequest(body: RequestBody, blockMap: BlockMap): FlatBlock[] {
  const out: FlatBlock[] = [];
  for (const tool of body.tools ?? [])
    out.push({ id: `tool:${(tool as { name?: string }).name ?? '?'}`, section: 'tools', param: tool });
  const system = body.system;
  if (typeof system === 'string') {
    if (system.length > 0) out.push({ id: 'system:0', section: 'system', param: { type: 'text', text: system } });
  } else if (system) {
    system.forEach((b, i) => out.push({ id: `system:${i}`, section: 'system', param: b }));
  }
  body.messages.forEach((m, mi) => {
    const blocks = typeof m.content === 'string' ? (m.content ? [{ type: 'text', text: m.content }] : []) : m.content;
    blocks.forEach((b, bi) =>
      out.push({ id: blockMap.idAt(mi, bi) ?? `messages.${mi}.${bi}`, section: 'messages', param: b }),
    );
  });
  return out;
}

/**
 * The inspector's name for a block id: `<message position>.<block index>` for log
 * blocks (the row ref), `tools` / `system` for the prefix, the id itself otherwise.
 */
export function refOf(session: Session, id: string): string {
  if (id.startsWith('tool:')) return 'tools';
  if (id.startsWith('system:')) return 'system';
  const block = session.block(id);
  if (!block) return id;
  const pos = session.position(block.messageId);
  return pos === undefined ? id : `${pos}.${block.index}`;
}
