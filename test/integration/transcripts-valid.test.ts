/**
 * Every real transcript in test/fixtures (other people's Claude Code sessions) through every
 * strategy that needs no model: 0 requests the API would refuse, judged by the engine's validator
 * with thinking taken from the recorded response the request continues (whose thinking blocks the
 * request's latest assistant message must carry unmodified), and by the test server's
 * independent checker with `thinking` enabled exactly when that response had thinking.
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayAll } from '../../src/core/engine/replay';
import { importTranscript } from '../../src/core/import';
import { RULE, validateRequest } from '../../src/core/request/validate';
import type { ImportedSession } from '../../src/core/session/types';
import { modelTable } from '../../src/dev/models';
import { checkRequest } from '../../src/dev/validate';
import { latestThinking } from '../bench/engine-bench';
import { MODEL_FREE_STRATEGIES } from '../property/strategy-specs';

const DIR = resolve('test/fixtures/transcripts/m-claude');
const DEV_MODELS = modelTable();

/**
 * The fixture files with no conversation (one a summary line, one system lines only): the
 * importer refuses them and says why. Any other file that fails to import fails the test.
 */
const NO_CONVERSATION: Readonly<Record<string, RegExp>> = {
  'dae783ed-78a0-461d-94e1-160b653520a9.jsonl': /no user or assistant messages \(2 parseable lines: 2 system\)/,
  'e6804af6-fe01-478c-9e10-75e94f3e93cb.jsonl': /no user or assistant messages \(1 parseable line: 1 summary\)/,
};

/**
 * The transcripts with at least one call, and every file that did not import as expected (by name, with the reason).
 */
function sessions(): { all: ImportedSession[]; failures: string[] } {
  const all: ImportedSession[] = [];
  const failures: string[] = [];
  for (const f of readdirSync(DIR)
    .filter((x) => x.endsWith('.jsonl'))
    .sort()) {
    let imp: ImportedSession;
    try {
      imp = importTranscript(join(DIR, f));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (!NO_CONVERSATION[f]?.test(message)) failures.push(`${f}: ${message}`);
      continue;
    }
    if (f in NO_CONVERSATION) failures.push(`${f}: imported, but is listed as having no conversation`);
    if (imp.calls.length > 0) all.push(imp);
  }
  return { all, failures };
}

describe('every strategy on every real transcript', () => {
  const { all, failures } = sessions();

  it('imports every transcript (only the listed ones with no conversation are refused, for that reason)', () => {
    expect(failures).toEqual([]);
  });

  it('has real sessions with thinking and tool loops to check', () => {
    expect(all.length).toBeGreaterThanOrEqual(15);
    expect(all.some((s) => s.messages.some((m) => m.blocks.some((b) => b.kind === 'thinking')))).toBe(true);
  });

  it.each(MODEL_FREE_STRATEGIES)('%s: 0 requests the API would refuse', (strategy) => {
    let requests = 0;
    const refused: string[] = [];
    for (const imp of all) {
      const byId = new Map(imp.messages.map((m) => [m.id, m]));
      // A response made with thinking, however the transcript split it over lines or messages.
      const thoughtful = new Set(
        imp.messages
          .filter((m) => m.blocks.some((b) => b.kind === 'thinking' || b.kind === 'redacted_thinking'))
          .map((m) => m.meta.apiMessageId ?? m.id),
      );
      replayAll(imp, { strategy }, ({ call, prepared }) => {
        requests++;
        const { body, blockMap } = prepared;
        const latest = body.messages.map((m) => m.role).lastIndexOf('assistant');
        const source = latest >= 0 ? byId.get(blockMap.idAt(latest, 0)?.split('.')[0] ?? '') : undefined;
        const thinking = source !== undefined && thoughtful.has(source.meta.apiMessageId ?? source.id);
        // The latest recorded response before this call: the request's latest assistant message must carry its
        // thinking, unmodified.
        const recorded = latestThinking(imp, call.epochStart, call.at);
        for (const v of validateRequest(body, { model: body.model, thinking, latestAssistantThinking: recorded }))
          refused.push(`${imp.file} call ${call.index}: ${v.message}`);
        const wire = {
          ...body,
          model: 'claude-sonnet-4-5',
          ...(thinking ? { thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 2048 } : {}),
        };
        const dev = checkRequest(wire, {
          endpoint: 'messages',
          models: DEV_MODELS,
          contextWindow: Infinity,
          verifySignature: () => undefined,
        });
        if (!dev.ok) refused.push(`${imp.file} call ${call.index} (test server): ${dev.rejection.message}`);
      });
    }
    // One request per recorded call of every session, each judged.
    expect(requests).toBe(all.reduce((n, imp) => n + imp.calls.length, 0));
    expect(refused).toEqual([]);
  });

  it('judges by the whole rule list, thinking rules included', () => {
    expect(Object.values(RULE)).toEqual(
      expect.arrayContaining([
        'thinking-loop-start',
        'thinking-final-block',
        'thinking-prefill',
        'thinking-modified',
        'thinking-first',
      ]),
    );
  });
});
