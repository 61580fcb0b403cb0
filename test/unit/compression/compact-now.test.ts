import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FACTS_SYSTEM,
  MEMORY_OPEN,
  SUMMARY_SYSTEM,
  compactNow,
  createCompressionStrategy,
  memoryOf,
} from '../../../src/core/trimming';
import type { SummaryOverlay } from '../../../src/core/session';
import {
  Builder,
  CHEAP_MODEL,
  filler,
  hostOf,
  reply,
  requestOf,
  startServer,
  transcriptPositions,
  violations,
  type Server,
} from './helpers';

/** m0 prompt · m1–m4 rounds · m5 answer · m6 prompt · m7–m8 round · m9 answer · m10 prompt (latest) · m11–m12 round */
function scenario(): Builder {
  const b = new Builder();
  b.turn('task one: fix the parser', ['src/a.ts', 'src/b.ts'], 'Fixed the parser in src/a.ts.');
  b.turn('task two: add tests', ['test/a.test.ts'], filler('Added tests', 30));
  b.prompt('task three: update the docs');
  b.round('README.md');
  return b;
}

let srv: Server;
beforeAll(async () => {
  srv = await startServer(CHEAP_MODEL);
});
afterAll(async () => {
  await srv.close();
});
beforeEach(() => srv.server.reset());

describe('compactNow through the real SDK client', () => {
  it('whole-history: one summarization call on the cheaper model, one restorable overlay, a valid request', async () => {
    const b = scenario();
    const before = requestOf(b.session);
    srv.server.script(reply('The parser bug in src/a.ts is fixed; tests were added in test/a.test.ts.'));
    const r = await compactNow(b.session, hostOf(b.session), 'whole-history', undefined, {
      summarizer: srv.summarizer,
    });

    // The server saw exactly the summarization request we expect.
    const [body] = srv.bodies();
    expect(srv.bodies()).toHaveLength(1);
    expect(body.model).toBe(CHEAP_MODEL);
    expect(body.system).toBe(SUMMARY_SYSTEM);
    expect(body.messages).toHaveLength(1);
    expect(transcriptPositions(srv.userText(0))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(srv.userText(0)).toContain('[tool call read_file toolu_0000] {"path":"src/a.ts"}');
    expect(srv.userText(0)).not.toContain('task three');

    expect(r.applied).toHaveLength(1);
    const o = r.applied[0];
    expect([o.fromMessageId, o.toMessageId, o.author]).toEqual(['m1', 'm9', 'strategy:whole-history']);
    expect(o.text).toContain('[Trimline whole-history: summary of 9 earlier messages; the originals are restorable]');
    // The range holds the user's prompt of task two: compression the user asked for says it summarized their words.
    expect(o.reason).toMatch(
      /messages 1–9 \(9 messages\) summarized by claude-haiku-4-5 \(\d+ → \d+ tokens\); includes the user's own words .* — on demand/,
    );
    expect(o.tokensAfter).toBeLessThan(o.tokensBefore);
    expect(r.usage?.input_tokens).toBeGreaterThan(0);

    // What the agent sends next: first prompt, summary, current turn verbatim; no API rule broken.
    const after = requestOf(b.session);
    expect(violations(b.session)).toEqual([]);
    expect(JSON.stringify(after.messages[0])).toContain('task one');
    expect(JSON.stringify(after.messages[0])).toContain('<summary>');
    expect(JSON.stringify(after.messages)).toContain('task three');
    expect(JSON.stringify(after.messages)).toContain('toolu_0003');

    // Restore brings back the original bytes.
    b.session.removeOverlay(o.id, 'user');
    expect(requestOf(b.session)).toEqual(before);
  });

  it('last-n-messages: the summarizer reads only the last n messages of the range', async () => {
    const b = scenario();
    srv.server.script(reply('Tests were added.'));
    const s = createCompressionStrategy('last-n-messages', { n: 3 });
    const r = await compactNow(b.session, hostOf(b.session), s, undefined, { summarizer: srv.summarizer });
    expect(transcriptPositions(srv.userText(0))).toEqual([7, 8, 9]);
    expect(srv.userText(0)).not.toContain('src/b.ts');
    expect([r.applied[0].fromMessageId, r.applied[0].toMessageId]).toEqual(['m1', 'm9']);
    expect(r.applied[0].reason).toContain('summarized from their last 3');
    expect(violations(b.session)).toEqual([]);
  });

  it('chunked: one call per chunk, all chunks applied, no chunk ends with a dangling tool call', async () => {
    const b = scenario();
    srv.server.script(reply('Chunk A.'), reply('Chunk B.'), reply('Chunk C.'));
    const r = await compactNow(
      b.session,
      hostOf(b.session),
      createCompressionStrategy('chunked', { n: 3 }),
      undefined,
      { summarizer: srv.summarizer },
    );
    expect(srv.bodies().map((_, i) => transcriptPositions(srv.userText(i)))).toEqual([[1, 2, 3, 4], [5, 6, 7, 8], [9]]);
    expect(r.applied.map((o) => [o.fromMessageId, o.toMessageId])).toEqual([
      ['m1', 'm4'],
      ['m5', 'm8'],
      ['m9', 'm9'],
    ]);
    for (const o of r.applied)
      expect(b.session.messages[b.session.position(o.toMessageId)!].blocks.some((x) => x.kind === 'tool_use')).toBe(
        false,
      );
    expect(violations(b.session)).toEqual([]);
  });

  it('retrieve-facts: asks for the concepts; the overlay is a facts list (single keeps one fact)', async () => {
    const b = scenario();
    const concepts = [
      { keyword: 'language', description: 'the main programming language', factType: 'single' },
      { keyword: 'files', description: 'files changed', factType: 'multiple' },
      { keyword: 'deploy', description: 'how the app is deployed', factType: 'single' },
    ];
    srv.server.script(
      reply(
        '## language\n- TypeScript\n- JavaScript too\n\n## `files`\n- src/a.ts: parser fixed\n* test/a.test.ts: new tests\n\n## deploy\n- NONE',
      ),
    );
    const r = await compactNow(
      b.session,
      hostOf(b.session),
      createCompressionStrategy('retrieve-facts', { concepts }),
      undefined,
      { summarizer: srv.summarizer },
    );
    expect(srv.bodies()[0].system).toBe(FACTS_SYSTEM);
    expect(srv.userText(0)).toContain('- deploy (single): how the app is deployed');
    expect(r.applied[0].text).toBe(
      [
        '[Trimline retrieve-facts: facts extracted from 9 earlier messages; the originals are restorable]',
        '## language (the main programming language)',
        '- TypeScript',
        '## files (files changed)',
        '- src/a.ts: parser fixed',
        '- test/a.test.ts: new tests',
      ].join('\n'),
    );
    expect(violations(b.session)).toEqual([]);
  });

  it('retrieve-facts with no facts found leaves the history as it is (like Koog)', async () => {
    const b = scenario();
    srv.server.script(reply('## task\n- NONE'));
    const r = await compactNow(b.session, hostOf(b.session), 'retrieve-facts', undefined, {
      summarizer: srv.summarizer,
    });
    expect(r.applied).toEqual([]);
    expect(r.skipped).toMatch(/not applied/);
    expect(b.session.allOverlays()).toEqual([]);
  });

  it('preserveMemory: the previous summary is carried verbatim into the next compression', async () => {
    const b = scenario();
    const host = hostOf(b.session);
    srv.server.script(reply('FIRST SUMMARY: parser fixed, tests added.'));
    const first = (await compactNow(b.session, host, 'whole-history', undefined, { summarizer: srv.summarizer }))
      .applied[0];
    b.answer('Docs updated.'); // m13
    b.turn('task four: release', ['CHANGELOG.md'], 'Released.'); // m14–m17
    b.prompt('task five'); // m18
    srv.server.script(reply('SECOND SUMMARY: docs updated, released.'));
    const r = await compactNow(b.session, host, 'whole-history', undefined, { summarizer: srv.summarizer });

    const text = srv.userText(1);
    expect(text).toContain('<memory>\n[Trimline whole-history: summary of 9 earlier messages');
    expect(text).toContain('FIRST SUMMARY');
    expect(transcriptPositions(text)).toEqual([10, 11, 12, 13, 14, 15, 16, 17]); // the old summary is memory, not transcript
    const second = r.applied[0] as SummaryOverlay;
    expect([second.fromMessageId, second.toMessageId]).toEqual(['m1', 'm17']);
    expect(second.text.startsWith(MEMORY_OPEN)).toBe(true);
    expect(memoryOf(second.text)).toEqual([first.text, expect.stringContaining('SECOND SUMMARY')]);
    expect(r.removed).toEqual([first.id]);
    expect(b.session.overlay(first.id)).toBeUndefined();
    expect(violations(b.session)).toEqual([]);

    // A third compression carries both, flat and in order.
    b.answer('ok'); // m19
    b.turn('task six', ['docs/guide.md'], 'Guide written.'); // m20–m23
    b.prompt('task seven'); // m24
    srv.server.script(reply('THIRD SUMMARY.'));
    const third = (await compactNow(b.session, host, 'whole-history', undefined, { summarizer: srv.summarizer }))
      .applied[0];
    const mem = memoryOf(third.text);
    expect(mem).toHaveLength(3);
    expect(mem[0]).toContain('FIRST SUMMARY');
    expect(mem[1]).toContain('SECOND SUMMARY');
    expect(mem[2]).toContain('THIRD SUMMARY');
  });

  it('without preserveMemory the previous summary is summarized again (last-n-messages drops it once it is old)', async () => {
    const b = scenario();
    const host = hostOf(b.session);
    const s = createCompressionStrategy('last-n-messages', { n: 4, preserveMemory: false });
    srv.server.script(reply('FIRST SUMMARY.'));
    await compactNow(b.session, host, s, undefined, { summarizer: srv.summarizer });
    b.answer('Docs updated.');
    b.turn('task four', ['CHANGELOG.md'], 'Released.');
    b.prompt('task five');
    srv.server.script(reply('SECOND SUMMARY.'));
    const r = await compactNow(b.session, host, s, undefined, { summarizer: srv.summarizer });
    expect(srv.userText(1)).not.toContain('FIRST SUMMARY');
    expect(srv.userText(1)).not.toContain('<memory>');
    expect(r.applied[0].text).not.toContain('FIRST SUMMARY');
  });

  it('pinned blocks stay: the range is split around them and the pin is sent verbatim', async () => {
    const b = scenario();
    b.session.addOverlay({
      kind: 'pin',
      blockId: 'm8.0',
      author: 'user',
      reason: 'keep',
      callIndex: 0,
      tokensBefore: 0,
      tokensAfter: 0,
    });
    srv.server.script(reply('Before the pin.'), reply('After the pin.'));
    const r = await compactNow(b.session, hostOf(b.session), 'whole-history', undefined, {
      summarizer: srv.summarizer,
    });
    expect(r.applied.map((o) => [o.fromMessageId, o.toMessageId])).toEqual([
      ['m1', 'm6'],
      ['m9', 'm9'],
    ]);
    expect(b.session.resolveMessage(8).blocks[0].state).toBe('pinned');
    expect(b.session.resolveMessage(7).blocks[1].state).toBe('pinned'); // protected with its pinned result
    const sent = JSON.stringify(requestOf(b.session).messages);
    expect(sent).toContain('toolu_0002'); // the pinned result and its call
    expect(violations(b.session)).toEqual([]);
  });

  it('a model error throws and leaves the session untouched; nothing to compress is reported, not thrown', async () => {
    const b = scenario();
    await expect(
      compactNow(b.session, hostOf(b.session), 'whole-history', undefined, { summarizer: srv.summarizer }),
    ).rejects.toThrow(/no scripted turn/);
    expect(b.session.allOverlays()).toEqual([]);
    const small = new Builder();
    small.prompt('hello');
    const r = await compactNow(small.session, hostOf(small.session), 'whole-history', undefined, {
      summarizer: srv.summarizer,
    });
    expect(r.applied).toEqual([]);
    expect(r.skipped).toMatch(/nothing to compress/);
    await expect(compactNow(b.session, hostOf(b.session), 'whole-history')).rejects.toThrow(/no summarizer/);
  });
});
