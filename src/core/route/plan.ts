/**
 * What routing an agent changes: the files, their content before and after, and one line for
 * the picker saying so. Pure: the host passes the paths and a reader; nothing here touches disk.
 */
import { join } from 'node:path';
import {
  agentInfo,
  AUTO_IMPORT_SETTING,
  BASE_URL_VAR,
  CLAUDE_CODE_ENV_SETTING,
  clineSteps,
  nameOf,
  PROFILE_NAME,
  rooImportFile,
  routeAutoImportSetting,
  routeClaudeCodeSetting,
  routeClaudeSettingsEnv,
  routeContinueConfig,
  routeCopilotModels,
  type AgentId,
  type RouteScope,
} from './agents';
import { getJsonValue } from './json-text';
import { keyChanges, type FileChange } from './journal';

export interface RoutePaths {
  /** VS Code's user settings folder (…/Code/User): settings.json, chatLanguageModels.json. */
  readonly userDir: string;
  /** The workspace folder (workspace scope), if any. */
  readonly workspace?: string;
  /** The user's home: ~/.claude, ~/.continue. */
  readonly home: string;
  /** Where Trimline keeps files it creates for agents (Roo's and Kilo's import file). */
  readonly dataDir: string;
  /** Who routes: the editor (Claude Code through its extension setting) or the CLI (its settings.json env). */
  readonly host: 'vscode' | 'cli';
}

export type ReadFile = (file: string) => string | null;

export interface AgentPlan {
  readonly agent: AgentId;
  /** Empty for an agent routed by hand (Cline). */
  readonly changes: readonly FileChange[];
  /** One line: what changes where. */
  readonly summary: string;
  /** Steps the user takes in the agent's own UI (a key to enter, a setting only it can change). */
  readonly steps: readonly string[];
}

function settingsFile(p: RoutePaths, scope: RouteScope): string {
  if (scope === 'user') return join(p.userDir, 'settings.json');
  if (!p.workspace) throw new Error('workspace scope needs an open folder');
  return join(p.workspace, '.vscode', 'settings.json');
}

type Paths = Parameters<typeof keyChanges>[1];

function jsonChange(
  agent: AgentId,
  file: string,
  read: ReadFile,
  paths: Paths,
  edit: (t: string) => string,
): FileChange {
  const before = read(file);
  return { agent, file, before, after: edit(before ?? ''), keys: keyChanges(before, paths) };
}

/** The plan of one agent at `scope`, pointing at `url`. Throws (RouteEditError) when a file cannot be edited safely. */
export function planAgent(agent: AgentId, scope: RouteScope, url: string, p: RoutePaths, read: ReadFile): AgentPlan {
  const info = agentInfo(agent);
  if (info.scopes.length > 0 && !info.scopes.includes(scope)) {
    throw new Error(`${info.name} has no ${scope} setting; route it at ${info.scopes.join(' or ')} scope`);
  }
  switch (agent) {
    case 'claude-code': {
      if (p.host === 'vscode') {
        const file = settingsFile(p, scope);
        const c = jsonChange(agent, file, read, [[CLAUDE_CODE_ENV_SETTING]], (t) => routeClaudeCodeSetting(t, url));
        const summary = `${CLAUDE_CODE_ENV_SETTING}: ${BASE_URL_VAR}=${url} in ${file}`;
        return { agent, changes: [c], summary, steps: [] };
      }
      const dir = scope === 'user' ? p.home : (p.workspace ?? '.');
      const file = join(dir, '.claude', scope === 'user' ? 'settings.json' : 'settings.local.json');
      const c = jsonChange(agent, file, read, [['env', BASE_URL_VAR]], (t) => routeClaudeSettingsEnv(t, url));
      return { agent, changes: [c], summary: `env.${BASE_URL_VAR}=${url} in ${file}`, steps: [] };
    }
    case 'roo':
    case 'kilo': {
      const importFile = join(p.dataDir, `${agent}-import.json`);
      const settings = settingsFile(p, scope);
      const key = AUTO_IMPORT_SETTING[agent];
      const imp: FileChange = { agent, file: importFile, before: read(importFile), after: rooImportFile(url) };
      const set = jsonChange(agent, settings, read, [[key]], (t) => routeAutoImportSetting(t, agent, importFile));
      return {
        agent,
        changes: [imp, set],
        summary: `${key} → a profile "${PROFILE_NAME}" (Anthropic at ${url}), imported at ${info.name}'s start`,
        steps: [
          `Reload the window: ${info.name} imports the profile on start and makes it current ` +
            '(once: Trimline then sets the import path back).',
          `Enter your Anthropic API key in that profile in ${info.name}'s settings (Trimline never writes keys).`,
          `Stop Routing restores the setting; the profile stays in ${info.name}: switch back to yours there.`,
        ],
      };
    }
    case 'continue': {
      const file = join(p.home, '.continue', 'config.yaml');
      const before = read(file);
      if (before === null) throw new Error(`${file} does not exist`);
      const summary = `apiBase: ${url}/v1/ on each "provider: anthropic" model in ${file}`;
      return { agent, changes: [{ agent, file, before, after: routeContinueConfig(before, url) }], summary, steps: [] };
    }
    case 'copilot': {
      const file = join(p.userDir, 'chatLanguageModels.json');
      const before = read(file);
      const groups = before === null ? [] : getJsonValue(before, []);
      const at = Array.isArray(groups) ? groups.findIndex((g: unknown) => nameOf(g) === PROFILE_NAME) : -1;
      const index = at < 0 ? (Array.isArray(groups) ? groups.length : 0) : at;
      const c = jsonChange(agent, file, read, [[index]], (t) => routeCopilotModels(t, url));
      return {
        agent,
        changes: [c],
        summary: `Custom Endpoint group "Trimline proxy" (Anthropic Messages at ${url}/v1/messages) in ${file}`,
        steps: [
          `Chat: Manage Language Models → "${PROFILE_NAME}": enter your Anthropic key; pick a "(Trimline)" model.`,
          "Copilot's hosted models cannot be routed: only models of this group go through Trimline.",
        ],
      };
    }
    case 'cline':
      const summary = `by hand in Cline's settings: custom base URL ${url}`;
      return { agent, changes: [], summary, steps: clineSteps(url) };
  }
}

/**
 * Plans of several agents in order, each reading the files as the plans before it left them
 * (two agents' settings in one settings.json both land; the record keeps the first original).
 */
export function planAgents(
  list: readonly { readonly agent: AgentId; readonly scope: RouteScope }[],
  url: string,
  p: RoutePaths,
  read: ReadFile,
): AgentPlan[] {
  const overlay = new Map<string, string>();
  const r: ReadFile = (f) => overlay.get(f) ?? read(f);
  return list.map(({ agent, scope }) => {
    const plan = planAgent(agent, scope, url, p, r);
    for (const c of plan.changes) overlay.set(c.file, c.after);
    return plan;
  });
}
