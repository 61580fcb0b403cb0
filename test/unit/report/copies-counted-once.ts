/**
 * Shared check of the compaction fixtures (causes-compact, causes-summarize-from-here): the kept
 * messages a compaction copies are no calls and carry no usage, so each recorded response is
 * counted once and the calls' input tokens are the usage summed once per response.
 */
import { expect } from 'vitest';
import type { ImportedSession } from '../../../src/core/session/types';

export interface AssistantLine {
  readonly type: string;
  readonly message?: { readonly id?: string; readonly usage?: { readonly input_tokens: number } };
}

export function expectCopiesCountedOnce(lines: readonly AssistantLine[], imp: ImportedSession, rowCalls: number): void {
  const ids = [...new Set(lines.filter((l) => l.type === 'assistant').map((l) => l.message!.id))];
  expect(imp.calls.map((c) => c.apiMessageId)).toEqual(ids);
  const copies = imp.messages.filter((m) => m.meta.flags?.includes('preserved'));
  expect(copies.length).toBeGreaterThan(0);
  for (const m of copies) expect(m.meta.usage).toBeUndefined();
  const seen = new Set<string>();
  let usageInput = 0;
  for (const l of lines) {
    if (l.type !== 'assistant' || seen.has(l.message!.id!)) continue;
    seen.add(l.message!.id!);
    usageInput += l.message!.usage!.input_tokens;
  }
  expect(imp.calls.reduce((a, c) => a + (c.usage?.input_tokens ?? 0), 0)).toBe(usageInput);
  expect(rowCalls).toBe(ids.length);
}
