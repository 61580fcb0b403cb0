/**
 * The headless CLI as a child process: bundled once per test file with esbuild
 * (the same bundle `npm run build` makes), run against the local server through
 * ANTHROPIC_BASE_URL, killed with SIGKILL when a test wants a crash.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';

const REPO = path.resolve(__dirname, '../..');

/** Bundle src/cli/main.ts into a temp dir; returns the bundle's path. */
export function buildCli(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-cli-'));
  const out = path.join(dir, 'cli.js');
  buildSync({
    entryPoints: [path.join(REPO, 'src/cli/main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: out,
    logLevel: 'silent',
  });
  return out;
}

export interface CliRun {
  readonly child: ChildProcess;
  /** Resolves when the process is gone: its exit code, or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
}

export function runCli(
  bundle: string,
  args: readonly string[],
  baseURL: string,
  cwd: string,
  extraEnv: Readonly<Record<string, string>> = {},
): CliRun {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: cwd, ANTHROPIC_BASE_URL: baseURL, ...extraEnv };
  const child = spawn(process.execPath, [bundle, 'run', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString('utf8')));
  child.stderr!.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stdout: () => out, stderr: () => err };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Poll `cond` every few ms until it holds (or throw after `limitMs`). */
export async function waitFor(cond: () => boolean, limitMs: number, what: string): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > limitMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}
