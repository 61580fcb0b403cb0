/**
 * One big request does not hold the proxy (issue 27): a body with many new bytes is handled in
 * steps of their own event-loop turns, other sessions' calls are answered between them, a call of
 * the same session waits for it, and what goes upstream is what the one-go path sends, byte for
 * byte. Ordering, not time: nothing here reads a clock.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { ProxyEngine, type Forward } from '../../../src/core/proxy/proxy-engine';
import { bigLog, ccBody, ccMessages, roundAssistant, roundResults } from '../../bench/proxy-session';

/** Bodies with this many new bytes are big here (the default is larger; the bodies stay small and fast). */
const BIG = 128 * 1024;
const NO_KEY = {};

/** A Claude-Code-shaped call of session `id`: `n` messages, and a last tool result of `text` when given. */
function body(id: string, rounds: readonly number[], text?: string): Buffer {
  const messages: Anthropic.MessageParam[] = ccMessages(20);
  rounds.forEach((k, i) => {
    messages.push(roundAssistant(k));
    const results = roundResults(k);
    if (text !== undefined && i === 0) {
      const content = results.content as Anthropic.ToolResultBlockParam[];
      content[0] = { ...content[0], content: text };
    }
    messages.push(results);
  });
  return Buffer.from(JSON.stringify(ccBody(messages, id)));
}

const engine = (): ProxyEngine => new ProxyEngine({ strategy: 'default', bigBodyBytes: BIG });

describe('a big request', () => {
  it("is handled in several event-loop turns: another session's calls are answered meanwhile", async () => {
    const e = engine();
    e.onRequest(body('big', []), NO_KEY, 1_000);
    const big = body('big', [900], bigLog(0.3));
    const order: string[] = [];
    let done = false;
    const pending = e.handle(big, NO_KEY, 2_000).then((f) => {
      done = true;
      order.push('big');
      return f;
    });
    // A bystander's call on every turn until the big one is answered.
    let k = 0;
    while (!done) {
      const f = await e.handle(body('bystander', [5_000 + k]), NO_KEY, 2_000 + k);
      expect(f.failOpen).toBeUndefined();
      order.push(`bystander ${k++}`);
      await new Promise((ok) => setImmediate(ok));
    }
    const f = await pending;
    expect(f.transformed).toBe(true);
    // Parsing, planning, the journal, the bytes: the bystander got in between them.
    expect(order.indexOf('big')).toBeGreaterThanOrEqual(3);
    e.close();
  });

  it('a call of the same session that comes meanwhile waits for it, and continues it', async () => {
    const e = engine();
    e.onRequest(body('big', []), NO_KEY, 1_000);
    const order: string[] = [];
    const first = e.handle(body('big', [900], bigLog(0.3)), NO_KEY, 2_000).then((f) => (order.push('big'), f));
    await new Promise((ok) => setImmediate(ok));
    const next = e.handle(body('big', [900, 901], bigLog(0.3)), NO_KEY, 3_000).then((f) => (order.push('next'), f));
    const [a, b] = await Promise.all([first, next]);
    expect(order).toEqual(['big', 'next']);
    expect(b.sessionId).toBe(a.sessionId);
    expect(b.callIndex).toBe(a.callIndex! + 1);
    e.close();
  });

  it('goes upstream as the same bytes as in one go, and so do the calls after it (its summary included)', async () => {
    const oneGo = new ProxyEngine({ strategy: 'default' });
    const steps = engine();
    const text = bigLog(0.2) + ' see https://example.com/build/4f9a2c1e and src/app/main.ts\n';
    const calls = [body('s', [])];
    for (let n = 1; n <= 5; n++)
      calls.push(
        body(
          's',
          Array.from({ length: n }, (_, i) => 900 + i),
          text,
        ),
      );
    const sent: [Forward, Forward][] = [];
    for (const [i, raw] of calls.entries())
      sent.push([oneGo.onRequest(raw, NO_KEY, 1_000 * (i + 1)), await steps.handle(raw, NO_KEY, 1_000 * (i + 1))]);
    for (const [a, b] of sent) {
      expect(b.transformed).toBe(a.transformed);
      expect(b.failOpen).toBe(a.failOpen);
      expect(b.body.equals(a.body)).toBe(true);
    }
    // The big result was summarized once it aged (the refs found off the event loop are the ones sent).
    const last = sent[sent.length - 1][1].body.toString();
    expect(last).toContain('src/app/main.ts');
    expect(last.length).toBeLessThan(text.length);
    oneGo.close();
    steps.close();
  });

  it('observe-only `none` sends the client bytes and records the big call all the same', async () => {
    const e = new ProxyEngine({ strategy: 'none', bigBodyBytes: BIG });
    e.onRequest(body('watch', []), NO_KEY, 1_000);
    const raw = body('watch', [900], bigLog(0.3));
    const f = await e.handle(raw, NO_KEY, 2_000);
    expect(f.transformed).toBe(false);
    expect(f.body).toBe(raw);
    const s = e.state(f.sessionId!)!.entry.session;
    expect(s.messages).toHaveLength(21);
    expect(s.calls).toHaveLength(2);
    e.close();
  });

  it('the client gets its own bytes when the big body is not a Messages request', async () => {
    const e = engine();
    const raw = Buffer.from(JSON.stringify({ model: 'm', prompt: 'x'.repeat(2 * BIG) }));
    const f = await e.handle(raw, NO_KEY);
    expect(f.transformed).toBe(false);
    expect(f.body).toBe(raw);
    const broken = Buffer.concat([raw, Buffer.from('{')]);
    expect((await e.handle(broken, NO_KEY)).failOpen).toBe('the request body is not JSON');
    e.close();
  });
});
