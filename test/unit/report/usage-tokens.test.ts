/**
 * The report path never tokenizes: the replay engine sizes log blocks from the
 * fit (the recorded usage) and anything a strategy writes from its characters
 * at the session's own ratio. Discovery's short head read orders files as the
 * full one does.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTranscript } from '../../../src/core/import';
import { headOf } from '../../../src/core/report/discover';
import { fitNone } from '../../../src/core/report/fit';
import { readRecorded } from '../../../src/core/import/claude-code-usage';
import type { RecordedCall } from '../../../src/core/import/recorded';
import { CHARS_PER_TOKEN } from '../../../src/core/report/sizing';
import { priceStrategy } from '../../../src/core/report/strategies';
import { PRIOR_WEIGHT_CHARS, SessionCharRatios, UsageSizedTokens } from '../../../src/core/report/usage-tokens';
import { encoderReady } from '../../../src/core/tokens';

const FILE = resolve('test/fixtures/transcripts/m-claude/343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl');
const MODEL = 'claude-opus-4-5';

function fitted() {
  const imp = importTranscript(FILE);
  const rec = readRecorded(readFileSync(FILE, 'utf8'), new Set());
  const byId = new Map<string, RecordedCall>(rec.conversations[0].calls.map((c) => [c.key.split('|')[0], c]));
  return { imp, fit: fitNone(imp, MODEL, byId) };
}

describe('UsageSizedTokens', () => {
  it('gives every log block its fitted size and other content a size from its characters', () => {
    const { imp, fit } = fitted();
    const tokens = new UsageSizedTokens(imp, fit.messages, MODEL);
    imp.messages.forEach((m, i) =>
      m.blocks.forEach((b, j) =>
        expect(tokens.block(b.param).tokens).toBe(Math.round(fit.messages[i].blocks[j].tokens)),
      ),
    );
    const placeholder = 'x'.repeat(3500);
    const t = tokens.text(placeholder).tokens;
    expect(t).toBe(tokens.ratios.estimate('text', 3500));
    expect(tokens.block({ type: 'text', text: placeholder }).tokens).toBe(t);
    expect(tokens.quality()).toBe('calibrated');
  });

  it('learns chars per token per class from blocks of known size, starting from the sizing default', () => {
    const r = new SessionCharRatios();
    expect(r.charsPerToken('tool_result')).toBeCloseTo(CHARS_PER_TOKEN, 10);
    r.observe('tool_result', 100, 50); // too short to teach
    expect(r.charsPerToken('tool_result')).toBeCloseTo(CHARS_PER_TOKEN, 10);
    r.observe('tool_result', 20_000, 10_000);
    expect(r.charsPerToken('tool_result')).toBeCloseTo(
      (PRIOR_WEIGHT_CHARS + 20_000) / (PRIOR_WEIGHT_CHARS / CHARS_PER_TOKEN + 10_000),
      10,
    );
    expect(r.charsPerToken('text')).toBeCloseTo(CHARS_PER_TOKEN, 10);
  });

  it('prices the default strategy without ever building the tokenizer', () => {
    const { imp, fit } = fitted();
    const def = priceStrategy(imp, MODEL, fit, 'default', {});
    expect(def.tokensSent).toBeGreaterThan(0);
    expect(encoderReady()).toBe(false);
  });
});

describe('headOf', () => {
  it('finds a session id past the first 4 KB as the full head read did', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trimline-head-'));
    const f = join(dir, 's.jsonl');
    const filler = JSON.stringify({ type: 'summary', summary: 'y'.repeat(6000) });
    writeFileSync(
      f,
      `${JSON.stringify({ type: 'x', timestamp: '2026-01-02T00:00:00Z' })}\n${filler}\n${JSON.stringify({ sessionId: 'abc' })}\n`,
    );
    expect(headOf(f)).toEqual({ timestamp: '2026-01-02T00:00:00Z', sessionId: 'abc' });
    const short = join(dir, 't.jsonl');
    writeFileSync(short, `${JSON.stringify({ sessionId: 'only' })}\n`);
    expect(headOf(short)).toEqual({ timestamp: undefined, sessionId: 'only' });
  });
});
