/** A recorded tool loop for replay tests: one prompt, then `calls` rounds 20 s apart, one tool call each. */
import { Session } from '../../../src/core/session';
import type { CallRecord, ImportedSession } from '../../../src/core/session/types';
import { round } from '../trimming/helpers';

type Round = Parameters<typeof round>[1][number];

export function timedToolLoop(
  model: string,
  file: string,
  prompt: string,
  calls: number,
  step: (i: number) => Round,
): ImportedSession {
  const s = new Session({ model });
  s.append('user', prompt);
  const records: CallRecord[] = [];
  const t0 = Date.parse('2026-01-01T10:00:00Z');
  for (let i = 0; i < calls; i++) {
    records.push({
      index: i,
      at: s.messages.length,
      epochStart: 0,
      model,
      timestamp: new Date(t0 + i * 20_000).toISOString(),
    });
    round(s, [step(i)]);
  }
  return { format: 'claude-code', file, model, messages: s.messages, calls: records, issues: [] };
}
