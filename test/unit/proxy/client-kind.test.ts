/**
 * The agent a proxied request came from, from header shapes real clients send (Claude Code:
 * `claude-cli/<v> (external, cli)` + `x-app: cli` + the SDK's `x-stainless-*`, as recorded in
 * shared/reference/anthropic-api.md "What real clients send"; the SDK alone: `Anthropic/JS <v>`
 * + `x-stainless-*`) and the self-description of the agents that use the SDK as it is.
 */
import { describe, expect, it } from 'vitest';
import { classifyClient, clientHeaders, CLIENT_LABELS } from '../../../src/core/proxy/client-kind';

const SDK = {
  'user-agent': 'Anthropic/JS 0.65.0',
  'x-stainless-lang': 'js',
  'x-stainless-package-version': '0.65.0',
  'x-stainless-os': 'Linux',
  'x-stainless-runtime': 'node',
  'anthropic-version': '2023-06-01',
};
const CLAUDE_CODE = {
  ...SDK,
  'user-agent': 'claude-cli/2.1.114 (external, cli)',
  'x-app': 'cli',
  'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
};
const sys = (text: string): { system: { type: string; text: string }[] } => ({ system: [{ type: 'text', text }] });

describe('classifyClient', () => {
  it('Claude Code by its user agent and x-app, also from the VS Code extension', () => {
    expect(classifyClient(CLAUDE_CODE, {})).toBe('claude-code');
    expect(classifyClient({ ...SDK, 'user-agent': 'claude-cli/2.0.31 (external, claude-vscode)' }, {})).toBe(
      'claude-code',
    );
    expect(classifyClient({ 'x-app': 'cli' }, {})).toBe('claude-code');
  });

  it('the SDK agents by what their system prompt says they are', () => {
    // Roo: src/core/prompts/sections/role… "You are Roo, a highly skilled software engineer"; Cline:
    // src/core/prompts/system.ts "You are Cline, …"; Kilo Code: "You are Kilo Code, …".
    expect(classifyClient(SDK, sys('You are Roo, a highly skilled software engineer with extensive knowledge'))).toBe(
      'roo',
    );
    expect(classifyClient(SDK, sys('You are Cline, a highly skilled software engineer with extensive knowledge'))).toBe(
      'cline',
    );
    expect(classifyClient(SDK, sys('You are Kilo Code, a highly skilled software engineer'))).toBe('kilo');
    expect(classifyClient(SDK, { system: "You are Claude Code, Anthropic's official CLI for Claude." })).toBe(
      'claude-code',
    );
  });

  it('Roo and Cline by their referer and title headers where they send them', () => {
    expect(
      classifyClient({ 'x-title': 'Roo Code', 'http-referer': 'https://github.com/RooVetGit/Roo-Cline' }, {}),
    ).toBe('roo');
    expect(classifyClient({ 'user-agent': 'RooCode/3.30.0' }, {})).toBe('roo');
    expect(classifyClient({ 'http-referer': 'https://cline.bot', 'x-title': 'Cline' }, {})).toBe('cline');
  });

  it('Copilot by its user agent or integration headers', () => {
    expect(classifyClient({ 'user-agent': 'GitHubCopilotChat/0.31.0' }, {})).toBe('copilot');
    expect(classifyClient({ 'copilot-integration-id': 'vscode-chat' }, {})).toBe('copilot');
    const copilot =
      'You are an expert AI programming assistant. When asked for your name, you must respond with "GitHub Copilot".';
    expect(classifyClient(SDK, sys(copilot))).toBe('copilot');
  });

  it('Continue: plain fetch, no SDK headers, its agent prompt', () => {
    // continuedev/continue core/llm/llms/Anthropic.ts: Content-Type, Accept, anthropic-version, x-api-key only.
    const continueHeaders = { accept: 'application/json', 'anthropic-version': '2023-06-01' };
    expect(classifyClient(continueHeaders, { system: '<important_rules>\n  You are in agent mode.' })).toBe('continue');
  });

  it('any other SDK program is "SDK"; a bare request is "other"', () => {
    expect(classifyClient(SDK, sys('You are a helpful assistant.'))).toBe('sdk');
    expect(classifyClient({ ...SDK, 'x-stainless-lang': 'python', 'user-agent': 'Anthropic/Python 0.40.0' }, {})).toBe(
      'sdk',
    );
    expect(classifyClient({}, {})).toBe('other');
    expect(CLIENT_LABELS.sdk).toBe('SDK');
  });

  it('headers beat the prompt: Claude Code quoting Roo is still Claude Code', () => {
    expect(classifyClient(CLAUDE_CODE, sys('You are Roo, …'))).toBe('claude-code');
  });
});

describe('clientHeaders', () => {
  it('keeps the identifying headers and never a credential', () => {
    const secrets = { 'x-api-key': 'sk-ant-secret', authorization: 'Bearer t', cookie: 'c' };
    const h = clientHeaders({
      ...CLAUDE_CODE,
      ...secrets,
      'X-Title': 'Roo Code',
      'anthropic-client-platform': 'vscode',
    });
    expect(h['user-agent']).toBe('claude-cli/2.1.114 (external, cli)');
    expect(h['x-title']).toBe('Roo Code');
    expect(h['anthropic-client-platform']).toBe('vscode');
    expect(JSON.stringify(h)).not.toMatch(/secret|Bearer|cookie/);
    expect(h['anthropic-beta']).toBeUndefined();
  });
});
