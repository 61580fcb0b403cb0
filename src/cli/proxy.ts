/**
 * `trimline proxy`: the Anthropic-compatible proxy with the inspector on the same port (see
 * src/host/proxy/server.ts). Prints two lines, `Trimline proxy: http://127.0.0.1:PORT` (the base
 * URL for clients) and `Trimline inspector: http://127.0.0.1:PORT/?token=…` (the inspector with
 * this launch's access token), then runs until Ctrl+C. Sessions are journaled under the user's data directory.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createPipeline } from '../core/trimming';
import { startProxy } from '../host/proxy/server';
import { terminalSafe } from '../protocol/safe-text';
import { loadConfig, UsageError } from './common';
import { parsePort } from './inspect';

export const PROXY_USAGE = 'trimline proxy [--port N] [--upstream URL] [--strategy S] [--config F] [--journal DIR | --no-journal] [--cache-diagnostics] [--verbose]';

/** Where Trimline keeps per-user data (XDG on Linux, Application Support on macOS, APPDATA on Windows). */
export function userDataDir(): string {
  if (process.env.TRIMLINE_DATA_DIR) return process.env.TRIMLINE_DATA_DIR;
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Trimline');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Trimline');
  return join(process.env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'trimline');
}

function upstreamOf(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    return v;
  } catch {
    throw new UsageError(`--upstream must be an http(s) URL, got "${v}"`);
  }
}

export async function runProxy(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', short: 'p' },
      upstream: { type: 'string' },
      strategy: { type: 'string', short: 's' },
      config: { type: 'string', short: 'c' },
      journal: { type: 'string' },
      'no-journal': { type: 'boolean' },
      'cache-diagnostics': { type: 'boolean' },
      verbose: { type: 'boolean', short: 'v' },
    },
  });
  const strategy = values.strategy ?? 'none';
  const config = loadConfig(values.config);
  try {
    createPipeline(strategy, config);
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const journalDir = values['no-journal'] ? undefined : (values.journal ?? join(userDataDir(), 'proxy-sessions'));
  const proxy = await startProxy({
    port: parsePort(values.port),
    upstream: upstreamOf(values.upstream),
    strategy,
    config,
    journalDir,
    // Verbose lines name models, paths and client text: through the terminal sanitizer.
    log: values.verbose ? (line) => process.stderr.write(`${terminalSafe(line)}\n`) : undefined,
    warn: (line) => process.stderr.write(`${terminalSafe(line)}\n`),
    cacheDiagnostics: values['cache-diagnostics'] ?? false,
    notice: (line) => process.stderr.write(`${terminalSafe(line)}\n`),
  });
  process.stdout.write(`Trimline proxy: ${proxy.url}\nTrimline inspector: ${proxy.inspectorUrl}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await proxy.close();
  return 0;
}
