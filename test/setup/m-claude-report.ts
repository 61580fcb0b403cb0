/**
 * Global setup of the browser project: the report of the m-claude transcripts (`none` and
 * `default`), built once per run instead of once per test file, written as JSON (what
 * `trimline report --json` writes) to a temp file whose path the tests get with
 * `inject('mClaudeReport')` (see test/browser/m-claude-report.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildReport } from '../../src/core/report';

declare module 'vitest' {
  export interface ProvidedContext {
    mClaudeReport: string;
  }
}

export const M_CLAUDE = resolve('test/fixtures/transcripts/m-claude');

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'trimline-m-claude-report-'));
  const file = join(dir, 'report.json');
  writeFileSync(file, JSON.stringify(buildReport({ paths: [M_CLAUDE], strategies: ['none', 'default'], config: {} })));
  project.provide('mClaudeReport', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
