/**
 * The agents *Route VS Code Agents…* and `trimline route` know, and the edit of each one's own
 * setting, in the format its source reads (each cited; the unit tests cite them again):
 *
 * - Claude Code (VS Code extension): `claudeCode.environmentVariables`, an array of
 *   `{ name, value }` the extension passes to the `claude` process it starts (the extension's
 *   package.json contributes it; users set `ANTHROPIC_BASE_URL` there, see its docs "Configure
 *   settings"). The CLI reads the `env` block of `~/.claude/settings.json` or
 *   `.claude/settings.local.json` (Claude Code settings docs, "Settings files").
 * - Roo Code / Kilo Code: provider profiles live in VS Code's secret storage; on activation the
 *   extension imports the file named by `roo-cline.autoImportSettingsPath` (Kilo:
 *   `kilo-code.autoImportSettingsPath`), `{ providerProfiles: { currentApiConfigName, apiConfigs:
 *   { <name>: { apiProvider: "anthropic", anthropicBaseUrl } } } }`, merged into the existing
 *   profiles by name (RooCodeInc/Roo-Code src/utils/autoImportSettings.ts,
 *   src/core/config/importExport.ts `importSettingsFromPath`, src/api/providers/anthropic.ts
 *   `baseURL: this.options.anthropicBaseUrl`).
 * - Continue: `models[].apiBase` of each `provider: anthropic` model in `~/.continue/config.yaml`;
 *   requests go to `new URL("messages", apiBase)`, so the base ends in `/v1/`
 *   (continuedev/continue core/llm/llms/Anthropic.ts).
 * - Copilot Chat: a Custom Endpoint provider group in `<VS Code user dir>/chatLanguageModels.json`:
 *   `{ name, vendor: "customendpoint", apiType: "messages", models: [{ id, name, url, toolCalling,
 *   vision, maxInputTokens, maxOutputTokens }] }` (VS Code ≥ 1.122, "Language models" docs).
 * - Cline: `anthropicBaseUrl` lives in its own state, set only in its settings UI
 *   (cline/cline src/core/api/providers/anthropic.ts `baseURL: this.options.anthropicBaseUrl`).
 *
 * No edit ever writes a key: a profile or group that needs one gets it from the agent's own UI.
 */
import { getJsonValue, RouteEditError, setJsonValue } from './json-text';
import { setContinueApiBase } from './yaml-text';

export type AgentId = 'claude-code' | 'roo' | 'kilo' | 'continue' | 'copilot' | 'cline';
export type RouteScope = 'user' | 'workspace';

export interface AgentInfo {
  readonly id: AgentId;
  readonly name: string;
  /** VS Code extension ids (matched case-insensitively). */
  readonly extensions: readonly string[];
  /** Where the agent can be routed: the scopes its setting exists in; none: manual steps only. */
  readonly scopes: readonly RouteScope[];
}

export const AGENTS: readonly AgentInfo[] = [
  { id: 'claude-code', name: 'Claude Code', extensions: ['anthropic.claude-code'], scopes: ['user', 'workspace'] },
  { id: 'roo', name: 'Roo Code', extensions: ['rooveterinaryinc.roo-cline'], scopes: ['user', 'workspace'] },
  { id: 'kilo', name: 'Kilo Code', extensions: ['kilocode.kilo-code'], scopes: ['user', 'workspace'] },
  { id: 'continue', name: 'Continue', extensions: ['continue.continue'], scopes: ['user'] },
  { id: 'copilot', name: 'Copilot Chat', extensions: ['github.copilot-chat'], scopes: ['user'] },
  { id: 'cline', name: 'Cline', extensions: ['saoudrizwan.claude-dev'], scopes: [] },
];

export function agentInfo(id: AgentId): AgentInfo {
  const a = AGENTS.find((x) => x.id === id);
  if (!a) throw new RouteEditError(`unknown agent ${id}`);
  return a;
}

export function isAgentId(v: string): v is AgentId {
  return AGENTS.some((a) => a.id === v);
}

/** VS Code setting of Claude Code's extension: environment of the `claude` process it starts. */
export const CLAUDE_CODE_ENV_SETTING = 'claudeCode.environmentVariables';
/** The variable every Anthropic client reads its base URL from. */
export const BASE_URL_VAR = 'ANTHROPIC_BASE_URL';
/** Roo's and Kilo's auto-import setting (their `Package.name` + `.autoImportSettingsPath`). */
export const AUTO_IMPORT_SETTING: Readonly<Record<'roo' | 'kilo', string>> = {
  roo: 'roo-cline.autoImportSettingsPath',
  kilo: 'kilo-code.autoImportSettingsPath',
};
/** The profile (Roo, Kilo) and provider group (Copilot) Trimline adds. */
export const PROFILE_NAME = 'Trimline proxy';

/** The `name` of an object (an env entry, a provider group), if it has one. */
export function nameOf(v: unknown): unknown {
  return typeof v === 'object' && v !== null ? (v as { name?: unknown }).name : undefined;
}

/** settings.json: `claudeCode.environmentVariables` with `ANTHROPIC_BASE_URL` = url, other entries kept. */
export function routeClaudeCodeSetting(text: string, url: string): string {
  const current = getJsonValue(text, [CLAUDE_CODE_ENV_SETTING]);
  if (current !== undefined && !Array.isArray(current)) {
    throw new RouteEditError(`${CLAUDE_CODE_ENV_SETTING} is not an array`);
  }
  const kept = (current ?? []).filter((e: unknown) => nameOf(e) !== BASE_URL_VAR);
  return setJsonValue(text, [CLAUDE_CODE_ENV_SETTING], [...kept, { name: BASE_URL_VAR, value: url }]);
}

/** Claude Code's own settings.json: `env.ANTHROPIC_BASE_URL` = url. */
export function routeClaudeSettingsEnv(text: string, url: string): string {
  const env = getJsonValue(text, ['env']);
  if (env !== undefined && (typeof env !== 'object' || env === null || Array.isArray(env))) {
    throw new RouteEditError('"env" is not an object');
  }
  return setJsonValue(text, ['env', BASE_URL_VAR], url);
}

/** The file Roo or Kilo imports: one Anthropic profile at the proxy, made current. No key. */
export function rooImportFile(url: string): string {
  const profile = { apiProvider: 'anthropic', anthropicBaseUrl: url };
  const providerProfiles = { currentApiConfigName: PROFILE_NAME, apiConfigs: { [PROFILE_NAME]: profile } };
  return `${JSON.stringify({ providerProfiles }, null, 2)}\n`;
}

/** settings.json: Roo's or Kilo's auto-import path. */
export function routeAutoImportSetting(text: string, agent: 'roo' | 'kilo', file: string): string {
  return setJsonValue(text, [AUTO_IMPORT_SETTING[agent]], file);
}

/** Continue's config.yaml: every `provider: anthropic` model's apiBase at the proxy (`/v1/`). */
export function routeContinueConfig(text: string, url: string): string {
  return setContinueApiBase(text, `${url.replace(/\/+$/, '')}/v1/`);
}

export interface CopilotModel {
  readonly id: string;
  readonly name: string;
  readonly maxInputTokens: number;
  readonly maxOutputTokens: number;
}

/** The Claude models the Copilot group lists (ids the Messages API accepts). */
export const COPILOT_MODELS: readonly CopilotModel[] = [
  { id: 'claude-sonnet-4-6', name: 'Claude Sonnet 4.6 (Trimline)', maxInputTokens: 200_000, maxOutputTokens: 64_000 },
  { id: 'claude-opus-4-1', name: 'Claude Opus 4.1 (Trimline)', maxInputTokens: 200_000, maxOutputTokens: 32_000 },
  { id: 'claude-haiku-4-5', name: 'Claude Haiku 4.5 (Trimline)', maxInputTokens: 200_000, maxOutputTokens: 64_000 },
];

/** chatLanguageModels.json: a `customendpoint` group of Anthropic models at the proxy (Trimline's own replaced). */
export function routeCopilotModels(
  text: string,
  url: string,
  models: readonly CopilotModel[] = COPILOT_MODELS,
): string {
  const base = text.trim() === '' ? '[]\n' : text;
  const groups = getJsonValue(base, []);
  if (!Array.isArray(groups)) throw new RouteEditError('chatLanguageModels.json is not an array of provider groups');
  const messages = `${url.replace(/\/+$/, '')}/v1/messages`;
  const group = {
    name: PROFILE_NAME,
    vendor: 'customendpoint',
    apiType: 'messages',
    models: models.map((m) => ({
      id: m.id,
      name: m.name,
      url: messages,
      toolCalling: true,
      vision: true,
      maxInputTokens: m.maxInputTokens,
      maxOutputTokens: m.maxOutputTokens,
    })),
  };
  const at = groups.findIndex((g: unknown) => nameOf(g) === PROFILE_NAME);
  return setJsonValue(base, [at < 0 ? groups.length : at], group);
}

/** What Cline needs, shown to the user with the URL to copy: its base URL is set only in its own UI. */
export function clineSteps(url: string): string[] {
  return [
    'Open Cline (its icon in the activity bar) and click the gear (Settings).',
    'API Provider: Anthropic. Keep your API key there.',
    'Tick "Use custom base URL" and paste the URL below.',
    'Click Done. Trimline names the session "Cline" when its first request arrives.',
    `URL: ${url}`,
  ];
}
