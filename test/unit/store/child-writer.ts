/**
 * Crash test helper: bundle a tiny writer (the real journal code) with esbuild,
 * run it in a child `node` that appends records in a loop, and SIGKILL it
 * mid-stream.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { journalPath } from '../../../src/core/store';

const REPO = path.resolve(__dirname, '../../..');
/** Records the child must have made durable before we kill it. */
const MIN_LINES_BEFORE_KILL = 50;
const WAIT_LIMIT_MS = 60_000;

const WRITER = `
import { Session } from ${JSON.stringify(path.join(REPO, 'src/core/session'))};
import { openJournal } from ${JSON.stringify(path.join(REPO, 'src/core/store'))};
export function run(dir: string, id: string): void {
  const journal = openJournal(dir, id);
  const session = new Session({ system: 'crash test' });
  journal.attach(session);
  for (let i = 0; ; i++) {
    const m = session.append(i % 2 ? 'assistant' : 'user', [{ type: 'text', text: 'message ' + i }]);
    if (i % 3 === 0) journal.recordDecision({ id: 'd' + i, padding: 'z'.repeat(i % 4000) });
    if (i % 5 === 0) session.addOverlay({ kind: 'pin', blockId: m.blocks[0].id, author: 'user', reason: 'r', callIndex: i, tokensBefore: 0, tokensAfter: 0 });
  }
}
`;

function lineCount(file: string): number {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').length - 1;
  } catch {
    return 0;
  }
}

export async function spawnChildWriter(dir: string, sessionId: string): Promise<{ file: string; killedAfter: number }> {
  const entry = path.join(dir, 'writer.ts');
  const bundle = path.join(dir, 'writer.cjs');
  fs.writeFileSync(entry, WRITER);
  buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: bundle,
    logLevel: 'silent',
  });
  const file = journalPath(dir, sessionId);
  const child = spawn(
    process.execPath,
    ['-e', `require(${JSON.stringify(bundle)}).run(${JSON.stringify(dir)}, ${JSON.stringify(sessionId)})`],
    { stdio: 'ignore' },
  );
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const started = Date.now();
  while (lineCount(file) < MIN_LINES_BEFORE_KILL) {
    if (Date.now() - started > WAIT_LIMIT_MS) throw new Error('child writer made no progress');
    await new Promise((r) => setTimeout(r, 5));
  }
  // Let it run a little longer so the kill lands at a random point of an append.
  await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
  const messagesBefore = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"message"')).length;
  child.kill('SIGKILL');
  const signal = await exited;
  if (signal !== 'SIGKILL') throw new Error(`child ended by ${signal}, not SIGKILL`);
  return { file, killedAfter: messagesBefore - 1 };
}
