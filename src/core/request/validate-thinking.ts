/** The validator's thinking rules: thinking first, the latest response's thinking unmodified, no thinking prefill. */
import type { ContentBlockParam } from '../session/types';
import { isThinking, sameBlock } from '../api/blocks';
import type { RequestBody, Violation } from '../api/wire';
import { RULE, v, type Messages } from './validate-rules';

const THINKING_MODIFIED =
  '`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. ' +
  'These blocks must remain as they were in the original response.';

/** Thinking first in any assistant message that has thinking; the latest one's thinking unmodified. */
export function checkThinking(
  msgs: Messages,
  originals: readonly ContentBlockParam[] | undefined,
  out: Violation[],
): void {
  msgs.forEach((m, i) => {
    if (m.role !== 'assistant' || typeof m.content === 'string' || m.content.length === 0) return;
    const first = m.content[0];
    if (!isThinking(first) && m.content.some(isThinking)) {
      out.push(
        v(
          RULE.thinkingFirst,
          `messages.${i}.content.0: If an assistant message contains any thinking blocks, ` +
            `the first block must be thinking or redacted_thinking. Found ${first.type}.`,
          i,
          0,
        ),
      );
    }
  });
  checkLatestThinking(msgs, originals, out);
}

/** The latest assistant message carries the model's thinking blocks unmodified and in order. */
export function checkLatestThinking(
  msgs: Messages,
  originals: readonly ContentBlockParam[] | undefined,
  out: Violation[],
): void {
  const latest = lastIndexOf(msgs, 'assistant');
  if (!originals || latest < 0) return;
  const content = msgs[latest].content;
  const sent: { block: ContentBlockParam; index: number }[] = [];
  if (typeof content !== 'string') content.forEach((b, index) => isThinking(b) && sent.push({ block: b, index }));
  const n = Math.max(sent.length, originals.length);
  for (let k = 0; k < n; k++) {
    if (sent[k] && originals[k] && sameBlock(sent[k].block, originals[k])) continue;
    const j = sent[k]?.index ?? Math.max(0, content.length - 1);
    out.push(v(RULE.thinkingModified, `messages.${latest}.content.${j}: ${THINKING_MODIFIED}`, latest, j));
    return;
  }
}

/** The body's own `thinking` param turns extended thinking on (`enabled`, or `adaptive` on newer models). */
export function thinkingEnabled(body: RequestBody): boolean {
  const t = (body as { thinking?: { type?: string } | null }).thinking;
  return t?.type === 'enabled' || t?.type === 'adaptive';
}

/** Index of the last message with this role, or -1. */
function lastIndexOf(msgs: Messages, role: 'user' | 'assistant'): number {
  for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i].role === role) return i;
  return -1;
}

/**
 * The thinking rules that depend on whether thinking is on (reference, "Requests that the API rejects"):
 * - a final assistant message does not end with a thinking block (the API's wording, from issue
 *   threads; an earlier thinking-only response is accepted: Claude Code sent one in ff59cfd2, call 24);
 * - with thinking on, the conversation ends with a user message (no prefill on any model; wording ours:
 *   the API's text for this case is not quoted anywhere we could find);
 * - with thinking on and the request continuing a tool loop (the last user message carries
 *   `tool_result`s), the assistant message before it starts with thinking (the API's wording);
 * - with thinking off, a final assistant message holds no thinking (the API's wording, from issue threads).
 */
export function checkThinkingLoop(msgs: Messages, thinking: boolean, out: Violation[]): void {
  const last = msgs.length - 1;
  if (last < 0) return;
  const final = msgs[last];
  if (final.role === 'assistant') {
    const tail = typeof final.content === 'string' ? undefined : final.content[final.content.length - 1];
    if (tail && isThinking(tail))
      out.push(
        v(
          RULE.thinkingFinalBlock,
          `messages.${last}: The final block in an assistant message cannot be \`thinking\`.`,
          last,
          final.content.length - 1,
        ),
      );
    if (thinking) {
      out.push(
        v(
          RULE.thinkingPrefill,
          `messages.${last}: When \`thinking\` is enabled, the conversation must end with a \`user\` message ` +
            '(assistant prefill is not supported with thinking).',
          last,
        ),
      );
    } else if (typeof final.content !== 'string' && final.content.some(isThinking)) {
      out.push(
        v(
          RULE.thinkingDisabledFinal,
          `messages.${last}.content.0: When thinking is disabled, an \`assistant\` message in the final position ` +
            'cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.',
          last,
          0,
        ),
      );
    }
    return;
  }
  if (!thinking || typeof final.content === 'string' || !final.content.some((b) => b.type === 'tool_result')) return;
  const a = lastIndexOf(msgs, 'assistant');
  if (a < 0) return;
  const content = msgs[a].content;
  const first = typeof content === 'string' ? 'text' : (content[0]?.type ?? 'nothing');
  if (first === 'thinking' || first === 'redacted_thinking') return;
  out.push(
    v(
      RULE.thinkingLoopStart,
      `messages.${a}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. ` +
        'When `thinking` is enabled, a final `assistant` message must start with a thinking block ' +
        '(preceeding the lastmost set of `tool_use` and `tool_result` blocks). ' +
        'We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`.',
      a,
      0,
    ),
  );
}
