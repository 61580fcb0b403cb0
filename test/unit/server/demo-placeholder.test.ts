/**
 * The offline demo model answers from what its tools returned. A result Trimline trimmed is a
 * placeholder, not the file: the answer never quotes it as the file's content.
 */
import { describe, expect, it } from 'vitest';
import { demoTurn } from '../../../src/dev/demo-policy';
import type { MessagesBody } from '../../../src/dev/types';

const PLACEHOLDER =
  '[trimmed by Trimline: older than the last 1 tool rounds; original restorable]\nsrc/cart.js: 4 lines';

function body(cartResult: string): MessagesBody {
  const tools = ['list_files', 'read_file', 'search'].map((name) => ({
    name,
    input_schema: { type: 'object', properties: { path: { type: 'string' }, query: { type: 'string' } } },
  }));
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    tools,
    messages: [
      { role: 'user', content: 'How does the cart compute its total? Look at src/cart.js.' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'list_files', input: { path: '.' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'src/cart.js\nsrc/pricing.js' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'b', name: 'read_file', input: { path: 'src/cart.js' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: cartResult }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c', name: 'search', input: { query: 'total', path: '.' } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c', content: 'No matches for "total" in . (searched 2 files).' },
        ],
      },
    ],
  } as unknown as MessagesBody;
}

function answer(cartResult: string): string {
  const t = demoTurn(body(cartResult));
  return t.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
}

describe('the offline demo model', () => {
  it('quotes a file it read, and never a trim placeholder as the file', () => {
    expect(answer('1\tclass Cart {}\n2\tmodule.exports = Cart;')).toContain(
      '`src/cart.js` has 2 lines and begins with: "1\tclass Cart {}',
    );
    const trimmed = answer(PLACEHOLDER);
    expect(trimmed).not.toContain('begins with: "[trimmed by Trimline');
    expect(trimmed).toContain('`src/cart.js` (read_file) was trimmed from my context');
  });

  it('says a search found nothing when the tool says so', () => {
    expect(answer('x')).toContain('Searching for "total" found nothing.');
  });
});
