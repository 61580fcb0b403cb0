/** The test server's cache diagnostics beta, through the real SDK, and the proxy's reading of its answer. */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { factsOfJson, SseUsageReader } from '../../../src/core/proxy/sse-usage';
import { CACHE_DIAGNOSIS_BETA } from '../../../src/dev/diagnostics';
import { startTestServer, type TestServer } from '../../../src/dev/server';

const MODEL = 'claude-sonnet-4-6';
let server: TestServer;
let plain: Anthropic;
let beta: Anthropic;

beforeAll(async () => {
  server = await startTestServer({ fallback: 'echo' });
  plain = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
  beta = new Anthropic({
    apiKey: 'test',
    baseURL: server.url,
    maxRetries: 0,
    defaultHeaders: { 'anthropic-beta': `other-beta,${CACHE_DIAGNOSIS_BETA}` },
  });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const system = [{ type: 'text' as const, text: 'Rules. '.repeat(900), cache_control: { type: 'ephemeral' as const } }];
const params = (
  messages: Anthropic.MessageParam[],
  previous: string | null,
  over: Record<string, unknown> = {},
): Anthropic.MessageCreateParamsNonStreaming =>
  ({
    model: MODEL,
    max_tokens: 64,
    system,
    messages,
    diagnostics: { previous_message_id: previous },
    ...over,
  }) as unknown as Anthropic.MessageCreateParamsNonStreaming;
const reasonOf = (m: unknown): unknown =>
  (m as { diagnostics?: { cache_miss_reason: unknown } }).diagnostics?.cache_miss_reason;

describe('cache diagnostics on the test server', () => {
  it('refuses the parameter without the beta header (400 invalid_request_error)', async () => {
    const err = await plain.messages.create(params([{ role: 'user', content: 'hi' }], null)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as InstanceType<typeof Anthropic.BadRequestError>).type).toBe('invalid_request_error');
    expect((err as Error).message).toContain('diagnostics: Extra inputs are not permitted');
  });

  it('null on the first call and when nothing diverged; the divergence with its tokens otherwise; unknown ids are not found', async () => {
    const first = await beta.messages.create(params([{ role: 'user', content: 'one' }], null));
    expect(reasonOf(first)).toBeNull();
    const history: Anthropic.MessageParam[] = [
      { role: 'user', content: 'one' },
      { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
      { role: 'user', content: 'two' },
    ];
    const clean = await beta.messages.create(params(history, first.id));
    expect(reasonOf(clean)).toBeNull();
    const model = await beta.messages.create(params(history, clean.id, { model: 'claude-opus-4-6' }));
    expect(reasonOf(model)).toMatchObject({ type: 'model_changed' });
    expect((reasonOf(model) as { cache_missed_input_tokens: number }).cache_missed_input_tokens).toBeGreaterThan(900);
    const edited = await beta.messages.create(
      params([{ role: 'user', content: 'ONE' }, ...history.slice(1)], clean.id),
    );
    expect(reasonOf(edited)).toMatchObject({ type: 'messages_changed' });
    const unknown = await beta.messages.create(params(history, 'msg_nope'));
    expect(reasonOf(unknown)).toEqual({ type: 'previous_message_not_found', cache_missed_input_tokens: 0 });
    // Streaming: in message_start.message, which the proxy's reader picks up.
    const reader = new SseUsageReader();
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'test',
        'anthropic-version': '2023-06-01',
        'anthropic-beta': CACHE_DIAGNOSIS_BETA,
      },
      body: JSON.stringify({
        ...params(history, clean.id, { system: [{ type: 'text', text: 'Other rules.' }] }),
        stream: true,
      }),
    });
    reader.push(Buffer.from(await res.text()));
    expect(reader.facts.cacheMissReason).toMatchObject({ type: 'system_changed' });
    expect(
      factsOfJson(
        JSON.stringify({
          type: 'message',
          id: 'm',
          usage: { input_tokens: 1, output_tokens: 1 },
          diagnostics: { cache_miss_reason: null },
        }),
      ).cacheMissReason,
    ).toBeNull();
    expect(
      factsOfJson(JSON.stringify({ type: 'message', id: 'm', usage: { input_tokens: 1, output_tokens: 1 } }))
        .cacheMissReason,
    ).toBeUndefined();
  });

  it('an upstream without the beta refuses it even with the header', async () => {
    const other = await startTestServer({ fallback: 'echo', cacheDiagnostics: false });
    try {
      const client = new Anthropic({
        apiKey: 'test',
        baseURL: other.url,
        maxRetries: 0,
        defaultHeaders: { 'anthropic-beta': CACHE_DIAGNOSIS_BETA },
      });
      const err = await client.messages
        .create(params([{ role: 'user', content: 'hi' }], null))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    } finally {
      await other.close();
    }
  });
});
