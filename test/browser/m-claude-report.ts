/** The report of the m-claude transcripts (`none`, `default`), built once per run by test/setup/m-claude-report.ts. */
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import type { Report } from '../../src/core/report';

export function mClaudeReport(): Report {
  return JSON.parse(readFileSync(inject('mClaudeReport'), 'utf8')) as Report;
}
