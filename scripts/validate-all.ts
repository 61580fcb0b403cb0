/**
 * Replays every transcript in a folder through every strategy and counts requests the validator
 * (strengthened with the thinking rules) refuses. `node dist/validate-all.js [DIR…]`.
 * Thinking is taken as on for a request when the response it continues had thinking.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { replayAll } from '../src/core/engine/replay';
import { importTranscript } from '../src/core/import';
import { RequestRefusedError } from '../src/core/request/build';
import { RULE } from '../src/core/request/validate';

const STRATEGIES = ['none', 'default', 'summarize-tool-results', 'supersede-stale-reads', 'tool-pruning', 'atomic-window', 'anthropic-clear-tool-uses', 'opencode-prune', 'openai-tool-output-trimmer', 'strands-window'];

function files(dirs: string[]): string[] {
  return dirs.flatMap((d) => (statSync(d).isDirectory() ? readdirSync(d).filter((f) => /\.(jsonl|json)$/.test(f)).map((f) => join(d, f)) : [d]));
}

const dirs = process.argv.slice(2);
let total = 0;
let bad = 0;
console.log(`rules: ${Object.values(RULE).join(', ')}`);
for (const f of files(dirs.length ? dirs : ['test/fixtures/transcripts/m-claude'])) {
  let imp;
  try {
    imp = importTranscript(f);
  } catch {
    continue;
  }
  for (const strategy of STRATEGIES) {
    let n = 0;
    const errs: string[] = [];
    try {
      replayAll(imp, { strategy }, () => n++);
    } catch (e) {
      errs.push(e instanceof RequestRefusedError ? e.message.slice(0, 300) : String(e).slice(0, 300));
    }
    total += n + errs.length;
    bad += errs.length;
    if (errs.length) console.log(`${f.split('/').pop()} ${strategy}: call ${n}: ${errs[0]}`);
  }
}
console.log(`${total} requests, ${bad} refused`);
