/**
 * The user's words inside a tool result (a Roo <feedback>) are looked for only in a message that holds the client's
 * context: another client's huge tool result is never scanned (issue 27: a 20 MB scan on the proxy's event loop).
 */
import { describe, expect, it } from 'vitest';
import type { ContentBlockParam } from '../../../src/core/session';
import { resultCarriesUserWords } from '../../../src/core/session/client-text';

/** A result whose text part counts how often it is read. */
function watched(text: string): { block: ContentBlockParam; reads: () => number } {
  let reads = 0;
  const part = {
    type: 'text' as const,
    get text(): string {
      reads++;
      return text;
    },
  };
  return { block: { type: 'tool_result', tool_use_id: 't', content: [part] }, reads: () => reads };
}

describe('user words in a tool result', () => {
  it('are not looked for in a message without client context (its result text is not read)', () => {
    const r = watched('log\n'.repeat(1000) + '<feedback>not a Roo message</feedback>');
    expect(resultCarriesUserWords(r.block, [r.block])).toBe(false);
    expect(r.reads()).toBe(0);
  });

  it('are found in a Roo message (its environment details beside the result)', () => {
    const r = watched('denied\n<feedback>use the other file</feedback>');
    const env: ContentBlockParam = { type: 'text', text: '<environment_details>\n# cwd\n</environment_details>' };
    expect(resultCarriesUserWords(r.block, [r.block, env])).toBe(true);
    expect(r.reads()).toBe(1);
  });
});
