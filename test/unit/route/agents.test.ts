/**
 * Each agent's setting, written in the format the agent's own source reads (cited per test),
 * with every other byte of the file kept.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'jsonc-parser';
import * as agents from '../../../src/core/route/agents';

const {
  clineSteps,
  rooImportFile,
  routeAutoImportSetting,
  routeClaudeCodeSetting,
  routeClaudeSettingsEnv,
  routeContinueConfig,
  routeCopilotModels,
} = agents;
import { RouteEditError } from '../../../src/core/route/json-text';

const PROXY = 'http://127.0.0.1:41234';

describe('Claude Code', () => {
  // anthropics/claude-code extension: `claudeCode.environmentVariables` is an array of
  // { name, value } passed to the `claude` process (docs "Configure settings", VS Code page).
  it('adds ANTHROPIC_BASE_URL to claudeCode.environmentVariables; comments and other settings stay', () => {
    const before =
      '{\n    // my theme\n    "workbench.colorTheme": "Dark+",\n    "claudeCode.environmentVariables": [\n        { "name": "DISABLE_TELEMETRY", "value": "1" },\n        { "name": "ANTHROPIC_BASE_URL", "value": "https://old" }\n    ],\n}\n';
    const after = routeClaudeCodeSetting(before, PROXY);
    const v = parse(after) as Record<string, unknown>;
    expect(v['claudeCode.environmentVariables']).toEqual([
      { name: 'DISABLE_TELEMETRY', value: '1' },
      { name: 'ANTHROPIC_BASE_URL', value: PROXY },
    ]);
    expect(after.startsWith('{\n    // my theme\n    "workbench.colorTheme": "Dark+",\n')).toBe(true);
    expect(after.endsWith('],\n}\n')).toBe(true);
  });

  it('creates the setting in an empty or missing settings file', () => {
    expect(parse(routeClaudeCodeSetting('', PROXY))).toEqual({
      'claudeCode.environmentVariables': [{ name: 'ANTHROPIC_BASE_URL', value: PROXY }],
    });
    expect(() => routeClaudeCodeSetting('{"claudeCode.environmentVariables": {"a": 1}}', PROXY)).toThrow(
      RouteEditError,
    );
  });

  // Claude Code settings docs ("Settings files", "Environment variables"): `env` in settings.json.
  it('sets env.ANTHROPIC_BASE_URL in .claude/settings.json, keeping other env entries', () => {
    const before = '{\n  "model": "opus",\n  "env": {\n    "FOO": "1"\n  }\n}\n';
    const after = routeClaudeSettingsEnv(before, PROXY);
    expect(parse(after)).toEqual({ model: 'opus', env: { FOO: '1', ANTHROPIC_BASE_URL: PROXY } });
    expect(after.startsWith('{\n  "model": "opus",\n  "env": {\n    "FOO": "1",')).toBe(true);
  });

  it('refuses a file that is not JSON instead of rewriting it', () => {
    expect(() => routeClaudeSettingsEnv('{ "env": ', PROXY)).toThrow(RouteEditError);
  });
});

describe('Roo Code and Kilo Code', () => {
  // RooCodeInc/Roo-Code src/core/config/importExport.ts importSettingsFromPath: the file is
  // z.object({ providerProfiles: providerProfilesSchema, globalSettings?: … }), providerProfiles =
  // { currentApiConfigName: string, apiConfigs: record(name, providerSettings) }, merged by name;
  // src/api/providers/anthropic.ts: `baseURL: this.options.anthropicBaseUrl`.
  it('writes an import file with one anthropic profile at the proxy, current, and no key', () => {
    const v = JSON.parse(rooImportFile(PROXY)) as {
      providerProfiles: { currentApiConfigName: string; apiConfigs: Record<string, Record<string, unknown>> };
    };
    const name = v.providerProfiles.currentApiConfigName;
    expect(v.providerProfiles.apiConfigs[name]).toEqual({ apiProvider: 'anthropic', anthropicBaseUrl: PROXY });
    expect(JSON.stringify(v)).not.toMatch(/apiKey|key"/i);
  });

  // src/utils/autoImportSettings.ts: getConfiguration(Package.name).get("autoImportSettingsPath"),
  // Package.name "roo-cline" (Kilo Code: "kilo-code"); absolute paths are used as they are.
  it('points roo-cline / kilo-code autoImportSettingsPath at that file', () => {
    expect(parse(routeAutoImportSetting('{}', 'roo', '/s/roo-import.json'))).toEqual({
      'roo-cline.autoImportSettingsPath': '/s/roo-import.json',
    });
    expect(parse(routeAutoImportSetting('{"a": 1}', 'kilo', '/s/k.json'))).toEqual({
      a: 1,
      'kilo-code.autoImportSettingsPath': '/s/k.json',
    });
  });
});

describe('Continue', () => {
  // continuedev/continue core/llm/llms/Anthropic.ts: provider "anthropic", default apiBase
  // "https://api.anthropic.com/v1/", requests `new URL("messages", this.apiBase)`.
  const yaml = [
    'name: My Config',
    'version: 0.0.1',
    '# models',
    'models:',
    '  - name: Sonnet',
    '    provider: anthropic',
    '    model: claude-sonnet-4-6',
    '    apiKey: ${{ secrets.ANTHROPIC }}',
    '  - name: Local',
    '    provider: ollama',
    '    model: qwen',
    '    apiBase: http://localhost:11434',
    '  - provider: "anthropic"',
    '    model: claude-haiku-4-5',
    '    apiBase: https://old.example/v1/ # mine',
    'context:',
    '  - provider: code',
    '',
  ].join('\n');

  it('sets apiBase on the anthropic models only, so Continue posts to <proxy>/v1/messages', () => {
    const after = routeContinueConfig(yaml, PROXY);
    const lines = after.split('\n');
    expect(lines.slice(4, 9)).toEqual([
      '  - name: Sonnet',
      '    provider: anthropic',
      `    apiBase: ${PROXY}/v1/`,
      '    model: claude-sonnet-4-6',
      '    apiKey: ${{ secrets.ANTHROPIC }}',
    ]);
    expect(lines).toContain('    apiBase: http://localhost:11434');
    expect(lines).toContain(`    apiBase: ${PROXY}/v1/`);
    expect(lines.filter((l) => l.includes(PROXY))).toHaveLength(2);
    expect(new URL('messages', `${PROXY}/v1/`).href).toBe(`${PROXY}/v1/messages`);
    // Everything but the two apiBase lines is byte-identical.
    const strip = (t: string): string =>
      t
        .split('\n')
        .filter((l) => !/apiBase: (http:\/\/127|https:\/\/old)/.test(l))
        .join('\n');
    expect(strip(after)).toBe(strip(yaml));
  });

  it('keeps CRLF and refuses a config without an anthropic model', () => {
    const crlf = 'models:\r\n  - provider: anthropic\r\n    model: m\r\n';
    expect(routeContinueConfig(crlf, PROXY)).toBe(
      `models:\r\n  - provider: anthropic\r\n    apiBase: ${PROXY}/v1/\r\n    model: m\r\n`,
    );
    expect(() => routeContinueConfig('models:\n  - provider: openai\n', PROXY)).toThrow(RouteEditError);
    expect(() => routeContinueConfig('name: x\n', PROXY)).toThrow(RouteEditError);
  });
});

describe('Copilot Chat', () => {
  // VS Code ≥ 1.122 "Language models" docs (chatLanguageModels.json): an array of provider groups
  // { name, vendor: "customendpoint", apiKey?, apiType: "messages" | "chat-completions" | "responses",
  //   models: [{ id, name, url, toolCalling, vision, maxInputTokens, maxOutputTokens }] }.
  it('adds a customendpoint group of Anthropic-format models at <proxy>/v1/messages, no key', () => {
    const before =
      '[\n  {\n    "name": "OpenAI",\n    "vendor": "openai",\n    "apiKey": "${input:chat.lm.secret.x}"\n  }\n]\n';
    const after = routeCopilotModels(before, PROXY);
    const groups = parse(after) as Record<string, unknown>[];
    expect(groups[0]).toEqual({ name: 'OpenAI', vendor: 'openai', apiKey: '${input:chat.lm.secret.x}' });
    const g = groups[1] as {
      vendor: string;
      apiType: string;
      apiKey?: string;
      models: { url: string; toolCalling: boolean }[];
    };
    expect(g.vendor).toBe('customendpoint');
    expect(g.apiType).toBe('messages');
    expect(g.apiKey).toBeUndefined();
    expect(g.models.length).toBeGreaterThan(0);
    for (const m of g.models) expect(m).toMatchObject({ url: `${PROXY}/v1/messages`, toolCalling: true });
    expect(after.startsWith('[\n  {\n    "name": "OpenAI",')).toBe(true);
    // Routing again replaces Trimline's own group instead of adding a second.
    expect((parse(routeCopilotModels(after, 'http://127.0.0.1:9')) as unknown[]).length).toBe(2);
  });

  it('creates the file when missing', () => {
    expect((parse(routeCopilotModels('', PROXY)) as unknown[]).length).toBe(1);
  });
});

describe('Cline', () => {
  // cline/cline src/core/api/providers/anthropic.ts: `baseURL: this.options.anthropicBaseUrl`,
  // a value of Cline's own state, set in its settings UI ("Use custom base URL").
  it('gives steps that end in the URL to paste', () => {
    const steps = clineSteps(PROXY);
    expect(steps.at(-1)).toBe(`URL: ${PROXY}`);
    expect(steps.join(' ')).toMatch(/custom base URL/);
  });
});
