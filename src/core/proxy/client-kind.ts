/**
 * Which agent a proxied request came from, from its own headers and shape (never its key):
 * - Claude Code: `user-agent: claude-cli/<version> (external, cli|claude-vscode|sdk-ts…)` and
 *   `x-app: cli`; its system prompt opens "You are Claude Code, Anthropic's official CLI".
 * - Roo Code, Kilo Code and Cline call the Anthropic SDK (`x-stainless-*` headers), so their
 *   system prompt says who they are: "You are Roo, …", "You are Kilo Code, …", "You are Cline, …"
 *   (their src/core/prompts/system*.ts); Roo's other providers also send `X-Title: Roo Code`.
 * - Copilot Chat: `user-agent: GitHubCopilotChat/<version>` or its `copilot-integration-id` /
 *   `editor-version` headers; its prompt names "GitHub Copilot".
 * - Continue: plain fetch with `x-api-key` and `anthropic-version`, no SDK headers; its agent
 *   prompt carries `<important_rules>`.
 * - Any other program on the SDK: `x-stainless-lang` (the SDK's platform headers).
 * The first rule that matches wins, headers before the prompt.
 */
import type { Headers } from './session-key';

export type ClientKind = 'claude-code' | 'roo' | 'kilo' | 'cline' | 'continue' | 'copilot' | 'sdk' | 'other';

export const CLIENT_LABELS: Readonly<Record<ClientKind, string>> = {
  'claude-code': 'Claude Code',
  roo: 'Roo Code',
  kilo: 'Kilo Code',
  cline: 'Cline',
  continue: 'Continue',
  copilot: 'Copilot',
  sdk: 'SDK',
  other: 'Other client',
};

/** Characters of the system prompt searched for an agent's self-description. */
const PROMPT_HEAD_CHARS = 4_000;

/** Headers that name the client (by name; `x-stainless-*` and `anthropic-client*` by prefix). */
const IDENTIFYING = new Set([
  'user-agent',
  'x-app',
  'x-title',
  'http-referer',
  'editor-version',
  'copilot-integration-id',
]);

/** The request headers the classifier reads (none carries a credential); the host passes only these. */
export function clientHeaders(all: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(all)) {
    const name = k.toLowerCase();
    if (!IDENTIFYING.has(name) && !name.startsWith('x-stainless-') && !name.startsWith('anthropic-client')) continue;
    const s = typeof v === 'string' ? v : v?.[0];
    if (s !== undefined) out[name] = s.slice(0, 200);
  }
  return out;
}

function promptHead(system: unknown): string {
  if (typeof system === 'string') return system.slice(0, PROMPT_HEAD_CHARS);
  if (!Array.isArray(system)) return '';
  let s = '';
  for (const b of system) {
    const text = typeof b === 'object' && b !== null ? (b as { text?: unknown }).text : undefined;
    if (typeof text === 'string') s += `${text}\n`;
    if (s.length >= PROMPT_HEAD_CHARS) break;
  }
  return s.slice(0, PROMPT_HEAD_CHARS);
}

function header(h: Headers, name: string): string {
  const v = h[name];
  return (typeof v === 'string' ? v : v?.[0]) ?? '';
}

/** The agent a request came from (see the file comment for the rules). */
export function classifyClient(h: Headers, body: { readonly system?: unknown }): ClientKind {
  const ua = header(h, 'user-agent');
  const title = header(h, 'x-title');
  if (/^claude-cli\//i.test(ua) || header(h, 'x-app') === 'cli') return 'claude-code';
  const copilotHeaders = header(h, 'copilot-integration-id') !== '' || /copilot/i.test(header(h, 'editor-version'));
  if (/GitHubCopilot/i.test(ua) || copilotHeaders) return 'copilot';
  if (/^RooCode\//i.test(ua) || /^Roo Code$/i.test(title)) return 'roo';
  if (/Kilo-?Code/i.test(ua) || /^Kilo Code$/i.test(title)) return 'kilo';
  if (/cline\.bot/i.test(header(h, 'http-referer')) || /^Cline$/i.test(title)) return 'cline';
  const prompt = promptHead(body.system);
  if (/You are Claude Code, Anthropic's official CLI/.test(prompt)) return 'claude-code';
  if (/\bYou are Roo\b/.test(prompt)) return 'roo';
  if (/\bYou are Kilo Code\b/.test(prompt)) return 'kilo';
  if (/\bYou are Cline\b/.test(prompt)) return 'cline';
  if (/GitHub Copilot/.test(prompt)) return 'copilot';
  if (header(h, 'x-stainless-lang') !== '') return 'sdk';
  if (/<important_rules>/.test(prompt) || /Continue/i.test(ua)) return 'continue';
  return 'other';
}
