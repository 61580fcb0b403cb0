/**
 * Calibration on real Claude Code transcripts (copies in test/fixtures/transcripts): online error ≤ 10% and better than
 * raw cl100k.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRANSCRIPT_DIR, deltaSamples, loadTranscript, measureCalibration } from '../../bench/tokens';

/** A long Sonnet 4.5 session (205 calls) and an Opus 4.5 one with a 211 KB tool result. */
const FILES = ['ff59cfd2-09dc-4a18-8c9f-0d46c3d4e8cd.jsonl', '43391f62-680a-4688-9dd8-3637467d6b23.jsonl'].map((f) =>
  join(TRANSCRIPT_DIR, f),
);
/** Goal from the design: calibrated median absolute error per call delta ≤ 10%. */
const MAX_MEDIAN_ABS = 0.1;

describe('token calibration on real transcripts', () => {
  const report = measureCalibration(FILES);

  it('has deltas to score in both transcripts', () => {
    expect(report.transcripts).toHaveLength(2);
    for (const t of report.transcripts) expect(t.stats.online.n).toBeGreaterThan(30);
  });

  it('online calibrated median abs error ≤ 10% and beats raw cl100k, per transcript', () => {
    for (const t of report.transcripts) {
      expect(t.stats.online.medianAbs, t.file).toBeLessThanOrEqual(MAX_MEDIAN_ABS);
      expect(t.stats.online.medianAbs, t.file).toBeLessThan(t.stats.raw.medianAbs);
      expect(Math.abs(t.stats.online.bias), t.file).toBeLessThan(Math.abs(t.stats.raw.bias));
    }
    expect(report.overall.raw.median).toBeLessThan(-0.2); // cl100k undercounts Claude
  });

  it('generalizes: trained on one transcript from the naive prior, frozen on the other', () => {
    for (const t of report.transcripts) expect(t.stats.loo.medianAbs, t.file).toBeLessThanOrEqual(MAX_MEDIAN_ABS);
  });

  it('sees Sonnet 4.5 drop earlier turns’ thinking at a new user turn', () => {
    const t = loadTranscript(FILES[0]);
    expect(t).toBeDefined();
    const samples = deltaSamples(t!);
    expect(samples.some((s) => s.removed.length > 0)).toBe(true);
    expect(samples.filter((s) => s.trueDelta <= 0).every((s) => s.removed.length > 0)).toBe(true);
  });
});
