/**
 * How other commands find a running `trimline proxy`: each proxy writes a small state file,
 * `<user data dir>/proxies/<port>.json` (its pid, URL, strategy, upstream, journal directory
 * and, where the proxy has one, the token its /api paths want), and removes it on exit.
 * Readers skip files whose process is gone (a proxy killed without its cleanup).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { errCode } from './common';

/** Where Trimline keeps per-user data (XDG on Linux, Application Support on macOS, APPDATA on Windows). */
export function userDataDir(): string {
  if (process.env.TRIMLINE_DATA_DIR) return process.env.TRIMLINE_DATA_DIR;
  if (process.platform === 'win32') {
    return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Trimline');
  }
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Trimline');
  return join(process.env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'trimline');
}

export interface ProxyState {
  readonly pid: number;
  readonly url: string;
  readonly port: number;
  readonly strategy: string;
  readonly upstream: string;
  /** Undefined: the proxy keeps no journal (--no-journal). */
  readonly journalDir?: string;
  /** The per-launch token of the proxy's /api paths, when it has one. */
  readonly token?: string;
  readonly startedAt: string;
}

export function proxyStateDir(dataDir: string): string {
  return join(dataDir, 'proxies');
}

/** Write the state file; returns the function that removes it (never throws: a proxy runs without one). */
export function writeProxyState(dataDir: string, state: ProxyState, warn: (line: string) => void): () => void {
  const dir = proxyStateDir(dataDir);
  const file = join(dir, `${state.port}.json`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
  } catch (e) {
    warn(`trimline proxy: no state file (${errCode(e)}): \`trimline statusline\` will read transcripts only`);
    return () => undefined;
  }
  return () => rmSync(file, { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists, it is another user's.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isState(v: unknown): v is ProxyState {
  const o = v as Partial<ProxyState> | null;
  if (typeof o !== 'object' || o === null || !Number.isInteger(o.pid)) return false;
  return typeof o.url === 'string' && /^http:\/\/127\.0\.0\.1:\d+$/.test(o.url);
}

/** The running proxies' states, most recently started first. */
export function runningProxies(dataDir: string): ProxyState[] {
  let names: string[];
  try {
    names = readdirSync(proxyStateDir(dataDir)).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const states: ProxyState[] = [];
  for (const n of names) {
    try {
      const v = JSON.parse(readFileSync(join(proxyStateDir(dataDir), n), 'utf8')) as unknown;
      if (isState(v) && alive(v.pid)) states.push(v);
    } catch {
      // a file being written or a stray one: not a proxy
    }
  }
  return states.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}
