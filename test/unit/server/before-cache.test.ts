/**
 * The test server's `beforeCache` hook: a replay adds, from what was sent, what its client did in between that the
 * recording does not hold (ground-truth.ts: the request Claude Code makes when a turn ends), before the cache prices
 * the request.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { blockTokens } from '../../../src/dev/tokens';
import { startTestServer, type TestServer } from '../../../src/dev/server';

const MODEL = 'claude-sonnet-4-6';
const system = [{ type: 'text' as const, text: 'Rules. '.repeat(900), cache_control: { type: 'ephemeral' as const } }];
const history: Anthropic.MessageParam[] = [
  { role: 'user', content: [{ type: 'text', text: 'Question. '.repeat(900) }] },
  { role: 'assistant', content: [{ type: 'text', text: 'Answer. '.repeat(900) }] },
  { role: 'user', content: [{ type: 'text', text: 'Next?', cache_control: { type: 'ephemeral' } }] },
];

let server: TestServer | undefined;
afterEach(() => server?.close());

async function send(hook?: (body: object) => void): Promise<Anthropic.Usage> {
  server = await startTestServer({ fallback: 'echo', beforeCache: hook });
  const client = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
  const m = await client.messages.create({ model: MODEL, max_tokens: 64, system, messages: history });
  return m.usage;
}

describe('test server beforeCache', () => {
  it('is given the request body, and what it writes to the cache the request then reads', async () => {
    const seen: object[] = [];
    // The request a turn's end makes: the history up to the response, a breakpoint on it.
    const usage = await send((body) => {
      seen.push(body);
      const upTo = history
        .slice(0, 2)
        .map((m, i) =>
          i === 1
            ? { ...m, content: [{ type: 'text', text: 'Answer. '.repeat(900), cache_control: { type: 'ephemeral' } }] }
            : m,
        );
      server!.cache.step({ model: MODEL, system, messages: upTo } as never, blockTokens, Date.now(), Date.now());
    });
    expect(seen).toHaveLength(1);
    expect((seen[0] as { messages: unknown[] }).messages).toHaveLength(3);
    expect(usage.cache_read_input_tokens).toBeGreaterThan(1000);
    expect(usage.input_tokens + (usage.cache_creation_input_tokens ?? 0)).toBeLessThan(100);
  });

  it('leaves the request cold without it', async () => {
    const usage = await send();
    expect(usage.cache_read_input_tokens ?? 0).toBe(0);
  });
});
