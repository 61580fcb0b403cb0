/**
 * `trimline report` on OpenAI-style trajectories: found in a directory walk, listed as having no billed usage, never
 * "corrupt lines".
 */
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport, completeLines } from '../../../src/core/report';

const MIT = resolve('test/fixtures/transcripts/mit-samples');

describe('report on OpenAI-style trajectories', () => {
  it('a directory walk finds .traj and .traj.json; both are rows without billed usage, with no corrupt lines or unfinished line', () => {
    const r = buildReport({ paths: [MIT], strategies: ['none', 'default'], config: {} });
    expect(r.sessions.map((s) => [s.file.split('/').pop(), s.model, s.calls, s.fit.status])).toEqual([
      ['mini-swe-agent_github_issue.traj.json', 'unknown', 0, 'no-usage'],
      ['sweagent_demo_function_calling_marshmallow-1867.traj', 'gpt-4o', 0, 'no-usage'],
      ['sweagent_gpt4_pydicom-1458.traj', 'unknown', 0, 'no-usage'],
    ]);
    for (const s of r.sessions)
      expect(s.fit.notes).toEqual(['openai-chat: no billed usage recorded, so nothing to anchor a counterfactual on']);
    // The OpenHands sample is a plain .json: not walked into, so nothing is skipped.
    expect(r.skipped).toEqual([]);
  });

  it('an OpenHands file named directly is a row without billed usage', () => {
    const r = buildReport({ paths: [join(MIT, 'openhands_basic_gui_mode.json')], strategies: ['none'], config: {} });
    expect(r.sessions.map((s) => [s.model, s.calls, s.fit.status, s.fit.notes])).toEqual([
      [
        'claude-3-5-sonnet-20241022',
        0,
        'no-usage',
        ['openhands: no billed usage recorded, so nothing to anchor a counterfactual on'],
      ],
    ]);
    expect(r.skipped).toEqual([]);
  });

  it('completeLines keeps one JSON document over several lines without a final newline', () => {
    const doc = '{\n  "history": [\n    {"role": "user", "content": "x"}\n  ]\n}';
    expect(completeLines(doc)).toBe(doc);
    expect(completeLines('{"a":1}\n{"b":')).toBe('{"a":1}\n');
  });
});
