import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ContextEngine } from '../../../src/core/engine';
import { validateRequest } from '../../../src/core/request';
import type { RequestBody } from '../../../src/core/api/wire';
import {
  attachSummarizer,
  compactNow,
  compressionStrategies,
  prepareCompression,
  type CompressionStrategy,
} from '../../../src/core/trimming';
import { Builder, CHEAP_MODEL, filler, reply, startServer, transcriptPositions, type Server } from './helpers';

/** m0 prompt · m1–m4 rounds · m5 answer · m6 prompt · m7–m8 round · m9 answer · m10 prompt (latest) · m11–m12 round */
function scenario(): Builder {
  const b = new Builder();
  b.turn('task one: fix the parser', ['src/a.ts', 'src/b.ts'], filler('Fixed the parser', 40));
  b.turn('task two: add tests', ['test/a.test.ts'], filler('Added tests', 40));
  b.prompt('task three: update the docs');
  b.round('README.md');
  return b;
}

/** An engine whose compression triggers at `fraction` of the 200k window (0.005 = 1,000 tokens). */
function engineFor(
  b: Builder,
  spec = 'whole-history',
  opts: Record<string, unknown> = {},
  fraction = 0.005,
): ContextEngine {
  const name = spec.split(',').pop()!;
  return new ContextEngine(b.session, {
    strategy: spec,
    config: { strategies: { [name]: { trigger: fraction, minTokens: 200, ...opts } } },
  });
}

const summaries = (b: Builder) => b.session.allOverlays().filter((o) => o.kind === 'summary');
const strategyOf = (e: ContextEngine): CompressionStrategy => compressionStrategies(e.pipeline)[0];

let srv: Server;
beforeAll(async () => {
  srv = await startServer(CHEAP_MODEL);
});
afterAll(async () => {
  await srv.close();
});
beforeEach(() => srv.server.reset());

/** Send the prepared body to the server through the SDK: the API-faithful validator must accept it. */
async function send(body: RequestBody): Promise<void> {
  srv.server.script(reply('ok'));
  await srv.client.messages.create(body);
  const last = srv.server.requests[srv.server.requests.length - 1];
  expect(last.validation.ok, last.validation.message).toBe(true);
}

async function idle(s: CompressionStrategy): Promise<void> {
  for (let i = 0; i < 200 && s.status().summarizing; i++) await new Promise((r) => setTimeout(r, 10));
}

describe('compression in the pipeline', () => {
  it('below the trigger: no model call, nothing changes', async () => {
    const b = scenario();
    const engine = engineFor(b, 'whole-history', {}, 0.9);
    attachSummarizer(engine.pipeline, srv.summarizer, { model: engine.model, decisions: engine.decisions });
    const [out] = await prepareCompression(b.session, engine, { callIndex: 0 });
    expect(out.status).toBe('below-threshold');
    engine.prepare({ callIndex: 0 });
    expect(srv.bodies()).toHaveLength(0);
    expect(summaries(b)).toHaveLength(0);
  });

  it('above the trigger: prepareCompression summarizes, the same engine.prepare applies it, the request is valid', async () => {
    const b = scenario();
    const engine = engineFor(b);
    attachSummarizer(engine.pipeline, srv.summarizer, { model: engine.model, decisions: engine.decisions });
    srv.server.script(reply('Parser fixed in src/a.ts; tests added.'));
    const [out] = await prepareCompression(b.session, engine, { callIndex: 0 });
    expect(out.status).toBe('ready');
    expect(out.usage?.output_tokens).toBeGreaterThan(0);
    expect(transcriptPositions(srv.userText(0))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);

    const call = engine.prepare({ callIndex: 0 });
    expect(summaries(b).map((o) => o.kind === 'summary' && [o.fromMessageId, o.toMessageId])).toEqual([['m1', 'm9']]);
    const applied = engine.decisions.all().find((d) => d.by === 'strategy:whole-history' && d.action === 'apply');
    expect(applied?.reason).toMatch(/view at \d+% of the context window/);
    expect(call.stats.sentTokens).toBeLessThan(call.stats.untrimmedTokens);
    expect(validateRequest(call.body, { model: engine.model })).toEqual([]);
    await send(call.body);
  });

  it('background: the first call above the trigger starts the summary, a later call applies it', async () => {
    const b = scenario();
    const engine = engineFor(b);
    attachSummarizer(engine.pipeline, srv.summarizer, { model: engine.model, decisions: engine.decisions });
    srv.server.script(reply('Parser fixed; tests added.'));
    engine.prepare({ callIndex: 0, now: 1_000 });
    expect(summaries(b)).toHaveLength(0); // nobody waited for the model
    await idle(strategyOf(engine));
    expect(strategyOf(engine).status().ready).toBe(true);
    b.session.append('assistant', [{ type: 'text', text: 'Docs are next.' }], {}, 'm13');
    b.session.append('user', 'go on', {}, 'm14');
    const call = engine.prepare({ callIndex: 1, now: 1_000 + 10 * 60_000 }); // cache expired: applied at once
    expect(summaries(b)).toHaveLength(1);
    expect(srv.bodies()).toHaveLength(1);
    expect(validateRequest(call.body, { model: engine.model })).toEqual([]);
    await send(call.body);
  });

  it('chunked: all chunks of one compression go to the cache-aware applier as one batch', async () => {
    const b = scenario();
    const engine = engineFor(b, 'chunked', { n: 4, background: false });
    attachSummarizer(engine.pipeline, srv.summarizer, { model: engine.model, decisions: engine.decisions });
    srv.server.script(reply('First chunk.'), reply('Second chunk.'));
    engine.prepare({ callIndex: 0, now: 1_000 }); // the prefix is cached from now on
    expect((await prepareCompression(b.session, engine, { callIndex: 1 }))[0].status).toBe('ready');
    expect(srv.bodies()).toHaveLength(2);
    // Warm cache, small session: rewriting the cached prefix is not worth it yet; both chunks wait together.
    engine.prepare({ callIndex: 1, now: 2_000 });
    expect(summaries(b)).toHaveLength(0);
    expect(
      engine.decisions
        .all()
        .filter((d) => d.action === 'defer')
        .map((d) => [d.callIndex, d.targets[0]]),
    ).toEqual([
      [1, 'm1'],
      [1, 'm5'],
    ]);
    // While they wait, the same ranges are not summarized again.
    expect((await prepareCompression(b.session, engine, { callIndex: 2 }))[0].status).toBe('nothing-to-compress');
    // Cache expired: both are applied in the same call; no new summarization was asked for meanwhile.
    const call = engine.prepare({ callIndex: 2, now: 2_000 + 10 * 60_000 });
    expect(summaries(b).map((o) => o.kind === 'summary' && [o.fromMessageId, o.toMessageId])).toEqual([
      ['m1', 'm4'],
      ['m5', 'm8'],
    ]);
    const applies = engine.decisions.all().filter((d) => d.by === 'strategy:chunked' && d.action === 'apply');
    expect(applies.map((d) => d.callIndex)).toEqual([2, 2]);
    expect(srv.bodies()).toHaveLength(2);
    await send(call.body);
  });

  it('with tool-pruning first (tool-pruning,whole-history), the result stays valid', async () => {
    const b = scenario();
    // tool-pruning runs first and shrinks the view: the trigger is checked on what is left.
    const engine = engineFor(b, 'tool-pruning,whole-history', {}, 0.001);
    attachSummarizer(engine.pipeline, srv.summarizer, { model: engine.model, decisions: engine.decisions });
    srv.server.script(reply('Two tasks done.'));
    const [out] = await prepareCompression(b.session, engine, { callIndex: 0 });
    expect(out.status).toBe('ready');
    const call = engine.prepare({ callIndex: 0 });
    expect(summaries(b)).toHaveLength(1);
    await send(call.body);
  });

  it('a model error is reported, logged and retried later; the turn goes on uncompressed', async () => {
    const b = scenario();
    const engine = engineFor(b);
    attachSummarizer(engine.pipeline, srv.summarizer, { model: engine.model, decisions: engine.decisions });
    const [out] = await prepareCompression(b.session, engine, { callIndex: 0 }); // nothing scripted: 500
    expect(out.status).toBe('failed');
    expect(out.error).toMatch(/no scripted turn/);
    expect(engine.decisions.all().some((d) => d.action === 'skip' && /summarization failed/.test(d.reason))).toBe(true);
    expect((await prepareCompression(b.session, engine, { callIndex: 1 }))[0].status).toBe('cooling-down');
    const call = engine.prepare({ callIndex: 1 });
    expect(summaries(b)).toHaveLength(0);
    await send(call.body);
    srv.server.script(reply('Recovered.'));
    expect((await prepareCompression(b.session, engine, { callIndex: 2 }))[0].status).toBe('ready');
  });

  it('an abort stops the wait and throws; the session is unchanged', async () => {
    const own = await startServer(); // a stalled request outlives the test: keep it off the shared server
    try {
      const b = scenario();
      const engine = engineFor(b);
      attachSummarizer(engine.pipeline, own.summarizer, { model: engine.model });
      own.server.fault({ kind: 'stall', ms: 300 });
      const ac = new AbortController();
      setTimeout(() => ac.abort(new Error('user cancelled')), 50);
      await expect(prepareCompression(b.session, engine, { callIndex: 0, signal: ac.signal })).rejects.toThrow(
        /cancelled|abort/i,
      );
      expect(strategyOf(engine).status()).toEqual({ summarizing: false, ready: false, lastError: undefined });
      engine.prepare({ callIndex: 0 });
      expect(summaries(b)).toHaveLength(0);
    } finally {
      await own.close();
    }
  });

  it('a prepared summary gone stale (pinned meanwhile) is dropped, not applied', async () => {
    const b = scenario();
    const engine = engineFor(b);
    attachSummarizer(engine.pipeline, srv.summarizer, { model: engine.model, decisions: engine.decisions });
    srv.server.script(reply('Summary.'));
    await prepareCompression(b.session, engine, { callIndex: 0 });
    b.session.addOverlay({
      kind: 'pin',
      blockId: 'm2.0',
      author: 'user',
      reason: 'keep',
      callIndex: 0,
      tokensBefore: 0,
      tokensAfter: 0,
    });
    engine.prepare({ callIndex: 0 });
    expect(summaries(b)).toHaveLength(0);
    expect(engine.decisions.all().some((d) => d.action === 'skip' && /stale/.test(d.reason))).toBe(true);
  });

  it('a summary the user restored is not compressed again automatically, but Compact Now may', async () => {
    const b = scenario();
    const engine = engineFor(b);
    attachSummarizer(engine.pipeline, srv.summarizer, { model: engine.model, decisions: engine.decisions });
    srv.server.script(reply('Summary one.'));
    await prepareCompression(b.session, engine, { callIndex: 0 });
    engine.prepare({ callIndex: 0 });
    const [o] = summaries(b);
    b.session.removeOverlay(o.id, 'user');
    expect((await prepareCompression(b.session, engine, { callIndex: 1 }))[0].status).toBe('nothing-to-compress');
    srv.server.script(reply('Summary two.'));
    const r = await compactNow(b.session, engine, undefined, undefined);
    expect(r.strategy).toBe('whole-history');
    expect(r.applied).toHaveLength(1);
    expect(engine.decisions.all().some((d) => /on demand \(Compact Now\)/.test(d.reason))).toBe(true);
    await send(engine.prepare({ callIndex: 1 }).body);
  });
});
