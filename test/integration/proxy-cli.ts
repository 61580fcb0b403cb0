/**
 * `node dist/cli.js proxy` as a child process (the built CLI, as a user runs it): started
 * on a free port, its URL and its inspector's address (with the access token) read from
 * its first two lines, its stderr kept, its descriptors and
 * memory read from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const CLI = path.resolve(__dirname, '../../dist/cli.js');

export interface CliProxy {
  readonly child: ChildProcess;
  /** The base URL for API clients. */
  readonly url: string;
  /** The inspector's address as printed: `url/?token=…`. */
  readonly inspectorUrl: string;
  /** The inspector's access token, from that address. */
  readonly token: string;
  readonly pid: number;
  stderr(): string;
  /** Stop it (SIGTERM: a clean shutdown; SIGKILL: a crash) and wait until it is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Start the proxy of the built CLI at `cli` (default: this checkout's dist/cli.js) with `args` (and Node's `nodeArgs`).
 */
export function startCliProxy(
  args: readonly string[],
  cli: string = CLI,
  nodeArgs: readonly string[] = [],
): Promise<CliProxy> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [...nodeArgs, cli, 'proxy', '--port', '0', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^Trimline proxy: (http:\/\/127\.0\.0\.1:\d+)\nTrimline inspector: (\S+)$/m.exec(out);
      if (m)
        ok({
          child,
          url: m[1],
          inspectorUrl: m[2],
          token: new URL(m[2]).searchParams.get('token') ?? '',
          pid: child.pid!,
          stderr: () => err,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            await exited;
          },
        });
    });
    child.once('exit', (code) => fail(new Error(`proxy exited ${code}: ${out}${err}`)));
  });
}

/** Open descriptors of a process (Linux). */
export function fdCount(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

/** Resident memory of a process in MB (Linux). */
export function rssMB(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** One `POST /v1/messages` with a session key; resolves with the status and the whole response text. */
export async function postMessages(
  url: string,
  sessionKey: string,
  body: unknown,
  timeoutMs = 30_000,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-probe',
      'anthropic-version': '2023-06-01',
      'x-claude-code-session-id': sessionKey,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, text: await res.text() };
}

/** One inspector request (`POST /api/request`), as the inspector page sends it (with the proxy's token). */
export async function inspectorRequest(proxy: Pick<CliProxy, 'url' | 'token'>, message: unknown): Promise<unknown[]> {
  const headers = { 'content-type': 'application/json', 'x-trimline-token': proxy.token };
  const res = await fetch(`${proxy.url}/api/request`, { method: 'POST', headers, body: JSON.stringify(message) });
  return (await res.json()) as unknown[];
}
