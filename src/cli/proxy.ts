/**
 * `trimline proxy`: the Anthropic-compatible proxy with the inspector on the same port (see
 * src/host/proxy/server.ts). Prints `Trimline proxy: http://127.0.0.1:PORT` (the base URL for clients),
 * `Trimline inspector: http://127.0.0.1:PORT/?token=…` (the inspector with this launch's access token),
 * then its strategy, upstream and journal directory, then runs until Ctrl+C. Sessions are journaled under the
 * user's data directory; a state file there lets `trimline statusline` find the proxy.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createPipeline } from '../core/trimming';
import { startProxy } from '../host/proxy/server';
import { terminalSafe } from '../protocol/safe-text';
import { errCode, loadConfig, UsageError } from './common';
import { parsePort } from './inspect';
import { parseCommand } from './args';
import { PROXY_COMMAND } from './commands';
import { userDataDir, writeProxyState } from './proxy-state';

export { userDataDir };

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

/** The journal directory made (if need be) and writable, else refused before the proxy starts. */
function checkJournalDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    const what = `proxy: --journal ${dir}: cannot write there (${errCode(e)})`;
    throw new UsageError(`${what}; pass another --journal DIR or --no-journal`);
  }
}

export async function runProxy(args: string[]): Promise<number> {
  const { values } = parseCommand(PROXY_COMMAND, args);
  if (values.journal !== undefined && values['no-journal']) {
    throw new UsageError('proxy: --journal and --no-journal are exclusive');
  }
  const strategy = values.strategy ?? 'none';
  const config = loadConfig(values.config);
  try {
    createPipeline(strategy, config);
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const defaultJournal = join(userDataDir(), 'proxy-sessions');
  const journalDir = values['no-journal'] ? undefined : resolve(values.journal ?? defaultJournal);
  if (journalDir !== undefined) checkJournalDir(journalDir);
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
  const upstream = proxy.upstream.href;
  // Listening for Ctrl+C before the banner: a signal right after it still closes the proxy cleanly.
  const stopped = new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  // The proxy's /api paths want the per-launch token: statusline reads it from the state file (0600).
  const token = proxy.token;
  const removeState = writeProxyState(
    userDataDir(),
    {
      pid: process.pid,
      url: proxy.url,
      port: proxy.port,
      strategy,
      upstream,
      journalDir,
      ...(typeof token === 'string' ? { token } : {}),
      startedAt: new Date().toISOString(),
    },
    (line) => process.stderr.write(`${terminalSafe(line)}\n`),
  );
  process.stdout.write(
    `Trimline proxy: ${proxy.url}\nTrimline inspector: ${proxy.inspectorUrl}\n` +
      terminalSafe(
        `  strategy ${strategy}${strategy === 'none' ? ' (observe only: requests go upstream unchanged)' : ''}\n` +
          `  upstream ${upstream}\n` +
          `  journal  ${journalDir ?? 'none (--no-journal)'}\n` +
          `  clients: ANTHROPIC_BASE_URL=${proxy.url}  (Ctrl+C to stop)\n`,
      ),
  );
  await stopped;
  removeState();
  await proxy.close();
  return 0;
}
