/**
 * Causes of a loose fit found on real Claude Code sessions (entire-dev), each on a self-made session of
 * test/fixtures/report-causes (usage from generate.mjs's own model of the API, not from this code).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../../src/core/import';
import { fitNone } from '../../../src/core/report/fit';
import { readRecorded } from '../../../src/core/import/claude-code-usage';
import type { RecordedCall } from '../../../src/core/import/recorded';
import { reportFile } from '../../../src/core/report/session-report';
import { explainFile } from '../../../src/core/report/explain';
import { largestDifferences } from '../../../src/core/report/call-rules';
import { runReportCli } from '../../../src/cli/report';
import { Writable } from 'node:stream';
import { ANCHOR_TOLERANCE } from '../../../src/protocol/report-types';

const DIR = resolve('test/fixtures/report-causes');
const OPUS_45 = 'claude-opus-4-5-20251101';

function fitted(file: string, model: string) {
  const text = readFileSync(`${DIR}/${file}`, 'utf8');
  const imp = parseTranscript(text, file);
  const rec = readRecorded(text, new Set());
  const byId = new Map<string, RecordedCall>(rec.conversations[0].calls.map((c) => [c.key.split('|')[0], c]));
  return {
    text,
    fit: fitNone(imp, model, byId, undefined, rec.conversations[0].events),
    recorded: rec.conversations[0].calls,
  };
}

const totalOf = (u: {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}): number => u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;

describe('a clearing the client did not record (the request shrinks from one call on)', () => {
  const { text, fit, recorded } = fitted('unrecorded-clearing.jsonl', OPUS_45);
  const at = fit.rewrites[0]?.call ?? -1;

  it('shrinks only that call and the later ones: every call before it is sent at its recorded size', () => {
    expect(at).toBeGreaterThan(5);
    for (let i = 1; i < at; i++)
      expect(Math.abs(fit.steps[i].totalInput / totalOf(recorded[i].usage) - 1)).toBeLessThan(0.01);
    for (let i = at; i < recorded.length; i++)
      expect(Math.abs(fit.steps[i].totalInput / totalOf(recorded[i].usage) - 1)).toBeLessThan(0.01);
    expect(fit.steps[at].totalInput).toBeLessThan(fit.steps[at - 1].totalInput);
  });

  it('is within ±5% of the bill and the row says where the client sent less', () => {
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
    const row = reportFile('unrecorded-clearing.jsonl', text, new Set(), { strategies: [], config: {} }).rows[0];
    expect(row.fit.status).toBe('anchored');
    expect(row.fit.notes.join('\n')).toMatch(
      new RegExp(`call ${at}: the client sent \\d+ tokens less than the transcript holds`),
    );
  });

  it('--explain shows the call where the history shrank and the rule behind it', () => {
    const [s] = explainFile('unrecorded-clearing.jsonl', text, '5a1c0e16');
    expect(s.calls).toHaveLength(recorded.length);
    expect(s.calls[at].rule).toMatch(/client sent \d+ tokens less than the transcript/);
    expect(s.calls[at].recorded!.read).toBe(recorded[at].usage.cache_read_input_tokens);
    expect(s.calls[at - 1].rule).toBe('match');
  });
});

describe("the TTL counts from the end of the response, the request goes out at the client's last line", () => {
  const { text, fit, recorded } = fitted('ttl-from-response-end.jsonl', OPUS_45);

  it('reads the cache after prompts 4–5 minutes past a long response (more than 5 minutes past its request)', () => {
    const prompts = recorded.map((_, i) => i).filter((i) => i > 3 && i % 2 === 0);
    expect(prompts.length).toBe(4);
    for (const i of prompts) {
      expect(Date.parse(recorded[i].requestTimestamp!) - Date.parse(recorded[i - 1].requestTimestamp!)).toBeGreaterThan(
        5 * 60_000,
      );
      expect(fit.steps[i].usage.cache_read_input_tokens).toBe(recorded[i].usage.cache_read_input_tokens);
      expect(fit.steps[i].usage.cache_read_input_tokens).toBeGreaterThan(20_000);
    }
    expect(fit.timings[4].refresh).toBe(Date.parse(recorded[4].endTimestamp!));
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
    const notes = reportFile('ttl-from-response-end.jsonl', text, new Set(), {
      strategies: [],
      config: {},
    }).rows[0].fit.notes.join('\n');
    expect(notes).toContain(
      `4 call(s) read the cache more than its TTL after the previous request, within it after that response ended (calls ${prompts.join(', ')})`,
    );
  });
});

describe('the client rewrites the session part of its system prompt (an invalidation reads the shared part alone)', () => {
  const { text, fit, recorded } = fitted('session-part-rewritten.jsonl', OPUS_45);
  const rewrites = recorded
    .map((_, i) => i)
    .filter((i) => i > 0 && recorded[i].usage.cache_read_input_tokens === 16_000);

  it('splits the prefix where those calls read, and rewrites the session part with the messages', () => {
    expect(recorded[0].usage.cache_read_input_tokens).toBe(0);
    expect(rewrites).toHaveLength(2);
    expect(fit.prefix.shared).toBe(16_000);
    for (const i of rewrites) {
      expect(fit.steps[i].usage.cache_read_input_tokens).toBe(16_000);
      expect(fit.sessionEpochs[i]).toBe(fit.sessionEpochs[i - 1] + 1);
    }
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
  });

  it("says so in the row's notes and in --explain", () => {
    const notes = reportFile('session-part-rewritten.jsonl', text, new Set(), {
      strategies: ['default'],
      config: {},
    }).rows[0].fit.notes.join('\n');
    expect(notes).toContain(
      `2 call(s) read only the shared part of the system prompt (16000 tokens: tools and stable blocks; calls ${rewrites.join(', ')})`,
    );
    const [s] = explainFile('session-part-rewritten.jsonl', text, '5a1c0e18');
    expect(s.calls[rewrites[0]].rule).toContain('the session part of the system prompt rewritten');
  });
});

describe('where a fit leaves the bill: --explain and the loose note', () => {
  const sink = () => {
    const chunks: string[] = [];
    return { out: new Writable({ write: (c, _e, cb) => (chunks.push(String(c)), cb()) }), text: () => chunks.join('') };
  };

  it('--explain prints one line per call of the named session, and fails on a session that is not there', async () => {
    const o = sink();
    expect(await runReportCli([`${DIR}/unrecorded-clearing.jsonl`, '--explain', '5a1c0e16'], o.out, sink().out)).toBe(
      0,
    );
    const lines = o.text().trim().split('\n');
    expect(lines[0]).toContain('session 5a1c0e16-0000-4000-8000-000000000016');
    expect(lines.filter((l) => /^\s+\d+ /.test(l))).toHaveLength(
      readRecorded(readFileSync(`${DIR}/unrecorded-clearing.jsonl`, 'utf8'), new Set()).conversations[0].calls.length,
    );
    const err = sink();
    expect(
      await runReportCli([`${DIR}/unrecorded-clearing.jsonl`, '--explain', 'no-such-session'], sink().out, err.out),
    ).toBe(1);
    expect(err.text()).toContain('no session matching "no-such-session"');
  });

  it('names the calls that differ most, largest first, each with its rule', () => {
    const { fit, recorded } = fitted('ttl-from-response-end.jsonl', OPUS_45);
    // The same session with the recorded reads of two calls made writes: the model now differs there.
    const byId = new Map<string, RecordedCall>(recorded.map((c) => [c.key.split('|')[0], c]));
    const calls = recorded.map((c) => ({ apiMessageId: c.key.split('|')[0] }));
    const bumped = new Map(byId);
    for (const [i, k] of [
      [4, 2],
      [8, 1],
    ]) {
      const c = recorded[i];
      const u = c.usage;
      const moved = Math.round(u.cache_read_input_tokens / k);
      bumped.set(calls[i].apiMessageId, {
        ...c,
        usage: {
          ...u,
          cache_read_input_tokens: u.cache_read_input_tokens - moved,
          cache_creation_input_tokens: u.cache_creation_input_tokens + moved,
          cache_creation: {
            ...u.cache_creation,
            ephemeral_5m_input_tokens: u.cache_creation.ephemeral_5m_input_tokens + moved,
          },
        },
      });
    }
    const note = largestDifferences(fit, bumped, calls, 2);
    expect(note).toMatch(/^call 8 −\$\d\.\d{3} \(.*OFF \(read \+\d+, write -\d+\)\); call 4 −\$\d\.\d{3} \(/);
  });
});
