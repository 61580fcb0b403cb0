/** House rule (docs/ARCHITECTURE.md, Conventions): source files stay under ~400 lines. */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { expect, it } from 'vitest';
import { importGraph, REPO } from './import-graph';

const MAX_LINES = 400;

it(`no source file in src/ or webview/ is over ${MAX_LINES} lines`, () => {
  const files = [...importGraph().files.keys()];
  expect(files.length).toBeGreaterThan(200);
  const over = files
    .map((f) => ({ file: relative(REPO, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
    .filter((f) => f.lines > MAX_LINES);
  expect(over).toEqual([]);
});
