/** Shared test fixtures: a chars/4 token accountant and hand-made sessions. */
import type Anthropic from '@anthropic-ai/sdk';
import { blockText } from '../../../src/core/session/log';
import { Session } from '../../../src/core/session/session';
import type { ContentBlockParam, MessageMeta, Role } from '../../../src/core/session/types';
import type { TokenAccountant } from '../../../src/core/tokens/types';
import type { RequestBody } from '../../../src/core/api/wire';

/** Characters per token of the test accountant (round and predictable). */
export const TEST_CHARS_PER_TOKEN = 4;

export const charsAccountant: TokenAccountant = {
  block: (p) => ({ tokens: Math.ceil(blockText(p).length / TEST_CHARS_PER_TOKEN), quality: 'estimated' }),
  text: (t) => ({ tokens: Math.ceil(t.length / TEST_CHARS_PER_TOKEN), quality: 'estimated' }),
  raw: (t) => Math.ceil(t.length / TEST_CHARS_PER_TOKEN),
};

export type Spec = [Role, string | ContentBlockParam[], MessageMeta?];

/** A session whose messages have ids m0, m1, … (blocks m0.0, m0.1, …). */
export function sessionOf(specs: Spec[], init: ConstructorParameters<typeof Session>[0] = {}): Session {
  const s = new Session(init);
  specs.forEach(([role, content, meta], i) => s.append(role, content, meta ?? {}, `m${i}`));
  return s;
}

export const text = (t: string): Anthropic.TextBlockParam => ({ type: 'text', text: t });
export const use = (
  id: string,
  name = 'read',
  input: Record<string, unknown> = { path: 'a.ts' },
): Anthropic.ToolUseBlockParam => ({
  type: 'tool_use',
  id,
  name,
  input,
});
export const result = (id: string, content: string = `result of ${id}`): Anthropic.ToolResultBlockParam => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
});
export const thinking = (t: string, signature = `sig-${t}`): Anthropic.ThinkingBlockParam => ({
  type: 'thinking',
  thinking: t,
  signature,
});

/** A body around messages. */
export function bodyOf(messages: RequestBody['messages'], extra: Partial<RequestBody> = {}): RequestBody {
  return { model: 'claude-sonnet-4-5', max_tokens: 1024, messages, ...extra };
}
