/**
 * Causes of a loose fit found on real Claude Code sessions, each on an excerpt of the entire-dev session that shows it
 * (test/fixtures/report-causes/entire-dev-*.jsonl, MIT, see NOTICE.md): the recorded usage is the API's own.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../../src/core/import';
import { readRecorded } from '../../../src/core/import/claude-code-usage';
import type { RecordedCall } from '../../../src/core/import/recorded';
import { fitNone } from '../../../src/core/report/fit';
import { reportFile } from '../../../src/core/report/session-report';
import { explainFile } from '../../../src/core/report/explain';
import { ANCHOR_TOLERANCE } from '../../../src/protocol/report-types';

const DIR = resolve('test/fixtures/report-causes');
const OPUS_45 = 'claude-opus-4-5-20251101';

function fitted(file: string) {
  const text = readFileSync(`${DIR}/${file}`, 'utf8');
  const imp = parseTranscript(text, file);
  const rec = readRecorded(text, new Set());
  const conv = rec.conversations[0];
  const byId = new Map<string, RecordedCall>(conv.calls.map((c) => [c.key.split('|')[0], c]));
  const fit = fitNone(imp, OPUS_45, byId, undefined, conv.events);
  const notes = (): string =>
    reportFile(file, text, new Set(), { strategies: ['default'], config: {} }).rows[0].fit.notes.join('\n');
  return { text, fit, recorded: conv.calls, notes };
}

const totalOf = (u: RecordedCall['usage']): number =>
  u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
const near = (a: number, b: number, share = 0.02): boolean => Math.abs(a - b) <= share * Math.max(a, b, 1);

describe('a transcript that starts mid-conversation, its earlier conversation rewritten (50_a05055ba87)', () => {
  const { text, fit, recorded, notes } = fitted('entire-dev-mid-conversation-rewrite.jsonl');
  // The call that sent less than the one before, and read up to the end of the system prompt only.
  const at = recorded.findIndex((c, i) => i > 0 && totalOf(c.usage) < totalOf(recorded[i - 1].usage) - 10_000);

  it('the first call reads the earlier conversation from cache: it was warm from the calls before the file', () => {
    expect(recorded[0].usage.cache_read_input_tokens).toBeGreaterThan(100_000);
    expect(fit.prefix.warmAtStart).toBe(true);
    expect(near(fit.steps[0].usage.cache_read_input_tokens, recorded[0].usage.cache_read_input_tokens)).toBe(true);
  });

  it('splits the prefix where the rewriting call read, and re-sends the rest as other bytes', () => {
    expect(at).toBeGreaterThan(5);
    const read = recorded[at].usage.cache_read_input_tokens;
    expect(Math.round(fit.prefix.shared + fit.prefix.session)).toBe(read);
    expect(fit.earlierRewrites).toEqual([expect.objectContaining({ call: at, compaction: false })]);
    expect(fit.earlierRewrites[0].to).toBeLessThan(fit.earlierRewrites[0].from);
    expect(fit.steps[at].usage.cache_read_input_tokens).toBe(read);
    expect(near(fit.steps[at].usage.cache_creation_input_tokens, recorded[at].usage.cache_creation_input_tokens)).toBe(
      true,
    );
    // Every call is sent at its recorded size, before and after: the transcript's blocks were not rescaled.
    expect(fit.rewrites).toEqual([]);
    for (let i = 0; i < recorded.length; i++)
      expect(near(fit.steps[i].totalInput, totalOf(recorded[i].usage))).toBe(true);
    expect(fit.invalidations).not.toContain(at);
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
  });

  it("says so in the row's notes and in --explain", () => {
    expect(notes()).toMatch(
      new RegExp(
        `the first call sent \\d+ tokens the transcript does not hold after the system prompt ` +
          `\\(${recorded[at].usage.cache_read_input_tokens} tokens\\): an earlier conversation: ` +
          `the transcript starts mid-conversation.*call ${at}: the client rewrote it to \\d+ tokens`,
      ),
    );
    const [s] = explainFile('entire-dev-mid-conversation-rewrite.jsonl', text, '44df7d08');
    expect(s.calls[at].rule).toMatch(/^prefix part not in the transcript \d+ → \d+ tokens \(the client cleared/);
  });
});

describe('a transcript that starts mid-conversation, then compacts (44_785715c3f5)', () => {
  const { fit, recorded, notes } = fitted('entire-dev-mid-conversation-compaction.jsonl');
  const at = fit.earlierRewrites[0]?.call ?? -1;

  it('drops the earlier conversation at the compaction: the first call after it reads the system prompt alone', () => {
    expect(fit.earlierRewrites).toHaveLength(1);
    expect(fit.earlierRewrites[0].compaction).toBe(true);
    expect(at).toBeGreaterThan(30);
    const read = recorded[at].usage.cache_read_input_tokens;
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(totalOf(recorded[0].usage) / 2);
    expect(fit.steps[at].usage.cache_read_input_tokens).toBe(read);
    for (let i = at; i < recorded.length; i++)
      expect(near(fit.steps[i].totalInput, totalOf(recorded[i].usage))).toBe(true);
    expect(fit.rewrites).toEqual([]);
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
  });

  it('the first call read only the session itself: no shared prefix kept warm by other sessions', () => {
    expect(fit.prefix.sharedWarm).toBe(false);
    expect(notes()).toContain(`call ${at}: a compaction dropped it`);
  });
});

describe("a shared prefix the client's other sessions had not kept warm (37_a33a6a62fd)", () => {
  const { text, fit, recorded, notes } = fitted('entire-dev-shared-prefix-cold.jsonl');
  const cold = recorded.findIndex((c, i) => i > 0 && c.usage.cache_read_input_tokens === 0);

  it('the first call found it warm; after a gap past the TTL the recording read nothing, and so does the model', () => {
    expect(recorded[0].usage.cache_read_input_tokens).toBeGreaterThan(10_000);
    expect(fit.prefix.sharedWarm).toBe(true);
    expect(cold).toBeGreaterThan(0);
    expect(fit.othersWarm[cold]).toBe(false);
    expect(fit.othersWarm.filter((w) => w === false)).toHaveLength(1);
    expect(fit.steps[cold].usage.cache_read_input_tokens).toBe(0);
    // The documented TTL explains that miss once nothing else kept the prefix warm: no client invalidation.
    expect(fit.invalidations).not.toContain(cold);
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
  });

  it("says so in the row's notes and in --explain", () => {
    expect(notes()).toContain(
      `1 call(s) read less than the shared prefix (${recorded[0].usage.cache_read_input_tokens} tokens: ` +
        `tools and stable system blocks; calls ${cold})`,
    );
    const [s] = explainFile('entire-dev-shared-prefix-cold.jsonl', text, 'ea0a65af');
    expect(s.calls[cold].rule).toContain("shared prefix cold too: the client's other sessions had not kept it warm");
  });
});

describe('a request the transcript does not hold writes the cache when a turn ends (70_33bba9319c)', () => {
  const { text, fit, recorded, notes } = fitted('entire-dev-turn-end-write.jsonl');
  const totalBefore = (i: number): number => totalOf(recorded[i - 1].usage);
  const past = recorded.flatMap((c, i) => (i > 0 && c.usage.cache_read_input_tokens > totalBefore(i) + 64 ? [i] : []));

  it('the next human turn reads past the previous request, and so does the model, where the recording shows it', () => {
    expect(past.length).toBeGreaterThan(0);
    // The first such call: the previous request sent its last 7939 tokens uncached, the next one read them.
    const i = past[0];
    expect(recorded[i - 1].usage.input_tokens).toBeGreaterThan(5_000);
    expect(fit.turnEndWrites[i]).toBeDefined();
    expect(fit.steps[i].usage.cache_read_input_tokens).toBeGreaterThan(totalBefore(i));
    expect(near(fit.steps[i].usage.cache_read_input_tokens, recorded[i].usage.cache_read_input_tokens)).toBe(true);
    expect(fit.turnEndWrites.filter(Boolean)).toHaveLength(past.length);
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(0.01);
  });

  it("says so in the row's notes and in --explain", () => {
    expect(notes()).toContain(`${past.length} call(s) after a turn ended read past the previous request`);
    const [s] = explainFile('entire-dev-turn-end-write.jsonl', text, '04cd0da1');
    expect(s.calls[past[0]].rule).toContain('read past the last request');
  });
});
