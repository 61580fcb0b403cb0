/**
 * `trimline route`: the agents' own settings pointed at a Trimline proxy this command runs, for
 * as long as it runs. `--list` shows the agents found on this machine and what routing each
 * would change; `--agent NAME` (repeatable) routes those and nothing else; Ctrl+C restores every
 * file byte for byte. The undo record is journaled before any change, so `--stop` restores after
 * a crash or a kill. Keys are never written.
 */
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CLIENT_LABELS, type ClientKind } from '../core/proxy/client-kind';
import { AGENTS, isAgentId, type AgentId, type RouteScope } from '../core/route/agents';
import { planAgent, planAgents, type AgentPlan, type RoutePaths } from '../core/route/plan';
import { startProxy, type ProxyHandle } from '../host/proxy/server';
import { applyRoute, readRecord, readText, restoreRoute } from '../host/route/files';
import { terminalSafe } from '../protocol/safe-text';
import { parseCommand } from './args';
import { UsageError } from './common';
import { ROUTE_COMMAND } from './commands';
import { parsePort } from './inspect';
import { userDataDir } from './proxy';

export const ROUTE_USAGE = ROUTE_COMMAND.usage.join(' | ');

/** VS Code's user settings folder on this platform. */
function vscodeUserDir(): string {
  if (process.platform === 'win32') {
    return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Code', 'User');
  }
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Code', 'User');
  return join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Code', 'User');
}

/** Installed extension folders (`publisher.name-version`), lower-cased. */
function extensionFolders(): string[] {
  const out: string[] = [];
  for (const d of [join(homedir(), '.vscode', 'extensions'), join(homedir(), '.vscode-server', 'extensions')]) {
    try {
      out.push(...readdirSync(d).map((n) => n.toLowerCase()));
    } catch {
      // not there
    }
  }
  return out;
}

/** The agents found on this machine: their files, folders or VS Code extensions. */
export function detectAgents(p: RoutePaths): AgentId[] {
  const ext = extensionFolders();
  const hasExt = (ids: readonly string[]): boolean => ids.some((id) => ext.some((n) => n.startsWith(`${id}-`)));
  return AGENTS.filter((a) => {
    if (a.id === 'claude-code') return existsSync(join(p.home, '.claude')) || hasExt(a.extensions);
    if (a.id === 'continue') return existsSync(join(p.home, '.continue', 'config.yaml'));
    if (a.id === 'copilot') return hasExt(a.extensions) || existsSync(join(p.userDir, 'chatLanguageModels.json'));
    return hasExt(a.extensions);
  }).map((a) => a.id);
}

function line(s: string): void {
  process.stdout.write(`${terminalSafe(s)}\n`);
}

function describePlans(plans: readonly (AgentPlan | { agent: AgentId; error: string })[]): void {
  for (const pl of plans) {
    const name = AGENTS.find((a) => a.id === pl.agent)?.name ?? pl.agent;
    if ('error' in pl) line(`  ${pl.agent.padEnd(12)} ${name}: cannot be routed: ${pl.error}`);
    else {
      line(`  ${pl.agent.padEnd(12)} ${name}: ${pl.summary}`);
      for (const s of pl.steps) line(`  ${' '.repeat(12)}   then: ${s}`);
    }
  }
}

export async function runRoute(args: string[]): Promise<number> {
  const { values } = parseCommand(ROUTE_COMMAND, args);
  const dir = join(userDataDir(), 'route');
  if (values.stop) {
    const report = restoreRoute(dir);
    if (!report) line('trimline route: nothing is routed.');
    else {
      for (const f of report.restored) line(`restored ${f}`);
      for (const c of report.conflicts) line(`not restored: ${c}`);
    }
    return report && report.conflicts.length > 0 ? 1 : 0;
  }
  const scope = (values.scope ?? 'user') as RouteScope;
  if (scope !== 'user' && scope !== 'workspace') {
    throw new UsageError(`--scope must be user or workspace, got "${String(values.scope)}"`);
  }
  const userDir = values['user-dir'] ?? vscodeUserDir();
  const paths: RoutePaths = { userDir, workspace: process.cwd(), home: homedir(), dataDir: dir, host: 'cli' };
  const found = detectAgents(paths);
  const plan = (agents: readonly AgentId[], url: string): (AgentPlan | { agent: AgentId; error: string })[] =>
    agents.map((a) => {
      try {
        return planAgent(a, scope, url, paths, readText);
      } catch (e) {
        return { agent: a, error: e instanceof Error ? e.message : String(e) };
      }
    });
  if (values.list || !values.agent?.length) {
    const record = readRecord(dir);
    line(found.length ? `Agents found (scope ${scope}) and what routing each would change:` : 'No agent found.');
    describePlans(plan(found, record?.url ?? `http://127.0.0.1:${values.port ?? '<port>'}`));
    if (record) line(`Routed now: ${record.changes.length} file(s) through ${record.url} (--stop restores them).`);
    if (!values.list) line(`Route some: ${ROUTE_USAGE}`);
    return 0;
  }
  const wanted = values.agent.map((a) => a.toLowerCase());
  for (const a of wanted) {
    if (!isAgentId(a)) throw new UsageError(`unknown agent "${a}" (one of: ${AGENTS.map((x) => x.id).join(', ')})`);
  }
  const record = readRecord(dir);
  const routedPort = record ? Number(new URL(record.url).port) : undefined;
  const port = values.port !== undefined ? parsePort(values.port) : routedPort;
  // Each routed agent's first request is announced once (its session named by the request's own headers and shape).
  const awaiting = new Set<string>(wanted);
  const live: { proxy?: ProxyHandle } = {};
  const arrived = (): void => {
    for (const e of live.proxy?.engine.sessions.all() ?? []) {
      const kind: ClientKind | undefined = e.client;
      if (!kind || !awaiting.delete(kind)) continue;
      line(`${CLIENT_LABELS[kind]}'s requests now arrive through Trimline (session ${e.id}).`);
    }
  };
  const proxy = await startProxy({
    port,
    upstream: values.upstream,
    strategy: values.strategy ?? 'none',
    journalDir: join(userDataDir(), 'proxy-sessions'),
    warn: (l) => process.stderr.write(`${terminalSafe(l)}\n`),
    onChange: () => arrived(),
  });
  live.proxy = proxy;
  const failed = plan(wanted as AgentId[], proxy.url).filter((p) => 'error' in p);
  if (failed.length > 0) {
    describePlans(failed);
    await proxy.close();
    return 2;
  }
  const ok = planAgents(
    wanted.map((agent) => ({ agent: agent as AgentId, scope })),
    proxy.url,
    paths,
    readText,
  );
  applyRoute(
    dir,
    proxy.url,
    scope,
    ok.flatMap((p) => p.changes),
  );
  line(`Trimline proxy: ${proxy.url}`);
  line('Routed (Ctrl+C restores every file):');
  describePlans(ok);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const report = restoreRoute(dir);
  for (const f of report?.restored ?? []) line(`restored ${f}`);
  for (const c of report?.conflicts ?? []) line(`not restored: ${c}`);
  await proxy.close();
  return 0;
}
