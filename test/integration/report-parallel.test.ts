/**
 * The report in worker threads gives the in-process report exactly: same rows
 * in the same order, same totals and skipped files, the same responses counted
 * where a resumed session copied its parent's lines, and the per-file cache
 * shared between the two.
 */
import { cpSync, mkdtempSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildReport, buildReportParallel, ReportCache, type Report } from '../../src/core/report';

const INPUTS = [
  'test/fixtures/transcripts/m-claude',
  'test/fixtures/transcripts/mit-samples',
  'test/fixtures/report',
].map((p) => resolve(p));
const STRATEGIES = ['none', 'default'];

/** The worker script bundled from source, so the test does not depend on a prior build. */
let script = '';
beforeAll(async () => {
  script = join(mkdtempSync(join(tmpdir(), 'trimline-worker-')), 'report-worker.js');
  await build({
    entryPoints: [resolve('src/cli/report-worker.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: script,
    logLevel: 'warning',
  });
});

/** The report as `--json` writes it (key order, undefined fields left out). */
const json = (r: Report): string => JSON.stringify(r);

describe('buildReportParallel', () => {
  const inProcess = buildReport({ paths: INPUTS, strategies: STRATEGIES, config: {} });

  it('equals the in-process report on the fixtures (two workers)', async () => {
    const par = await buildReportParallel({
      paths: INPUTS,
      strategies: STRATEGIES,
      config: {},
      workerScript: script,
      workers: 2,
    });
    expect(json(par)).toBe(json(inProcess));
    // The resumed copy counts only its own responses (its first pass counted its parent's too and was redone).
    const copy = par.sessions.find((r) => r.file.includes('ff33b5b0'))!;
    expect([copy.duplicates, copy.calls]).toEqual([18, 6]);
  });

  it('equals it with more workers than cores and with a worker script that cannot start (in process then)', async () => {
    const many = await buildReportParallel({
      paths: INPUTS,
      strategies: ['none'],
      config: {},
      workerScript: script,
      workers: 5,
    });
    expect(json(many)).toBe(json(buildReport({ paths: INPUTS, strategies: ['none'], config: {} })));
    const broken = await buildReportParallel({
      paths: INPUTS,
      strategies: STRATEGIES,
      config: {},
      workerScript: join(tmpdir(), 'no-such-worker.js'),
      workers: 2,
    });
    expect(json(broken)).toBe(json(inProcess));
  });

  it('shares the per-file cache with the in-process report: written by workers, read by either, a changed file read again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trimline-par-cache-'));
    cpSync(INPUTS[0], join(dir, 'in'), { recursive: true });
    const paths = [join(dir, 'in')];
    const cacheFile = join(dir, 'cache.json');
    const par = async () => {
      const cache = new ReportCache(cacheFile);
      return {
        rep: await buildReportParallel({
          paths,
          strategies: ['none'],
          config: {},
          cache,
          workerScript: script,
          workers: 2,
        }),
        hits: cache.hits,
      };
    };
    const first = await par();
    expect(first.hits).toBe(0);
    const seq = new ReportCache(cacheFile);
    const second = buildReport({ paths, strategies: ['none'], config: {}, cache: seq });
    expect(seq.hits).toBeGreaterThan(20);
    expect(json(second)).toBe(json(first.rep));
    const third = await par();
    expect(third.hits).toBe(seq.hits);
    expect(json(third.rep)).toBe(json(first.rep));
    const changed = first.rep.sessions[0].file;
    const later = new Date(statSync(changed).mtimeMs + 60_000);
    utimesSync(changed, later, later);
    const fourth = await par();
    expect(fourth.hits).toBe(third.hits - 1);
    expect(json(fourth.rep)).toBe(json(buildReport({ paths, strategies: ['none'], config: {} })));
  });
});
