/**
 * What the next request is made of: system, tool definitions, user and assistant text,
 * tool calls, tool results per tool, thinking and summaries, in tokens as sent.
 */
import type { CompositionEntry, CompositionGroup } from '../../protocol';
import { SYNTHETIC } from '../request/render';
import type { Session } from '../session/session';
import type { FlatBlock } from './flat';

/** Display order of the groups (tool results follow, largest first). */
const ORDER: readonly { group: CompositionGroup; label: string }[] = [
  { group: 'system', label: 'System prompt' },
  { group: 'tools', label: 'Tool definitions' },
  { group: 'user', label: 'User text' },
  { group: 'assistant', label: 'Assistant text' },
  { group: 'tool-calls', label: 'Tool calls' },
  { group: 'thinking', label: 'Thinking' },
  { group: 'summaries', label: 'Summaries' },
  { group: 'other', label: 'Other' },
];

/** Group (and, for tool results, the tool) of one sent block. */
function classify(session: Session, b: FlatBlock): { group: CompositionGroup; tool?: string } {
  if (b.section !== 'messages') return { group: b.section };
  if (b.id.startsWith(SYNTHETIC.summary)) return { group: 'summaries' };
  const block = session.block(b.id);
  if (!block) return { group: 'other' };
  // Environment output of a thought-action loop, or a Cline-style text result (named by its header): tool results.
  if (block.observation) return { group: 'tool-results', tool: block.toolName ?? 'observation' };
  switch (block.kind) {
    case 'text':
      return { group: session.messageOf(b.id)?.role === 'assistant' ? 'assistant' : 'user' };
    case 'tool_use':
      return { group: 'tool-calls' };
    case 'tool_result':
      return { group: 'tool-results', tool: block.toolName ?? 'unknown tool' };
    case 'thinking':
    case 'redacted_thinking':
      return { group: 'thinking' };
    default:
      return { group: 'other' };
  }
}

/** Composition of a flattened request; empty groups are left out. */
export function composition(
  session: Session,
  tokensOf: (param: object) => number,
  flat: readonly FlatBlock[],
): CompositionEntry[] {
  const byGroup = new Map<CompositionGroup, number>();
  const byTool = new Map<string, number>();
  for (const b of flat) {
    const t = tokensOf(b.param);
    const c = classify(session, b);
    if (c.tool !== undefined) byTool.set(c.tool, (byTool.get(c.tool) ?? 0) + t);
    else byGroup.set(c.group, (byGroup.get(c.group) ?? 0) + t);
  }
  const out: CompositionEntry[] = [];
  for (const { group, label } of ORDER.slice(0, 5)) {
    const t = byGroup.get(group);
    if (t) out.push({ label, tokens: t, group });
  }
  for (const [tool, t] of [...byTool].sort((a, b) => b[1] - a[1]))
    if (t) out.push({ label: `Results: ${tool}`, tokens: t, group: 'tool-results' });
  for (const { group, label } of ORDER.slice(5)) {
    const t = byGroup.get(group);
    if (t) out.push({ label, tokens: t, group });
  }
  return out;
}
