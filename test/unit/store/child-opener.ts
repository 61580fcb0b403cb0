/**
 * Lock race helper: bundle a tiny opener (the real journal code) with esbuild and run many
 * of them in separate `node` processes that all open the same journal at the same moment
 * (each waits for a go file), hold it until all have tried, and say whether they got it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';

const REPO = path.resolve(__dirname, '../../..');

const OPENER = `
import fs from 'node:fs';
import path from 'node:path';
import { openJournal } from ${JSON.stringify(path.join(REPO, 'src/core/store'))};
const pause = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
export function run(dir: string, id: string, go: string, n: number): void {
  process.stdout.write('ready\\n');
  const until = Date.now() + 20000;
  while (!fs.existsSync(go) && Date.now() < until) pause(1);
  let journal;
  let said;
  try {
    journal = openJournal(dir, id);
    said = 'owner';
  } catch (e) {
    said = 'locked ' + (e as Error).name;
  }
  // Everyone has tried before an owner lets go (a late starter must not find the lock free).
  fs.writeFileSync(go + '.' + process.pid, '');
  const tried = (): number => fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(go) + '.')).length;
  while (journal && tried() < n && Date.now() < until) pause(2);
  journal?.close();
  process.stdout.write(said + '\\n');
}
`;

/** Bundle the opener once into `dir`; returns the bundle's path. */
export function buildOpener(dir: string): string {
  const entry = path.join(dir, 'opener.ts');
  const bundle = path.join(dir, 'opener.cjs');
  fs.writeFileSync(entry, OPENER);
  buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: bundle,
    logLevel: 'silent',
  });
  return bundle;
}

/** Start `n` openers of `<dir>/<id>.jsonl`, release them together, and collect what each said. */
export async function raceOpeners(bundle: string, dir: string, id: string, n: number): Promise<string[]> {
  const go = path.join(dir, `go-${Math.random().toString(36).slice(2)}`);
  const children = Array.from({ length: n }, () => {
    const child = spawn(
      process.execPath,
      [
        '-e',
        `require(${JSON.stringify(bundle)}).run(${JSON.stringify(dir)}, ${JSON.stringify(id)}, ${JSON.stringify(go)}, ${n})`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    const ready = new Promise<void>((ok) =>
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('ready\n')) ok();
      }),
    );
    const done = new Promise<string>((ok) => child.on('exit', () => ok(out.replace('ready\n', '').trim())));
    return { ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  fs.writeFileSync(go, '');
  return Promise.all(children.map((c) => c.done));
}
