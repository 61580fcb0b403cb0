/**
 * The one YAML edit routing needs: the `apiBase` of each `provider: anthropic` model in
 * Continue's config.yaml (`models:` is a top-level block sequence of mappings, as the
 * config.yaml reference and continuedev/continue's own examples write it). Line based, so every
 * other byte, comments included, stays; flow-style items (`- { … }`) are left alone.
 */
import { RouteEditError } from './json-text';

const MODELS = /^models:\s*(#.*)?$/;
const ITEM = /^(\s*)-\s+(.*)$/;
const KEY = /^([A-Za-z_][\w-]*):(.*)$/;

function unquote(v: string): string {
  const s = v.replace(/\s+#.*$/, '').trim();
  return /^(['"]).*\1$/.test(s) ? s.slice(1, -1) : s;
}

interface Line {
  text: string;
  eol: string;
}

function splitLines(text: string): Line[] {
  const out: Line[] = [];
  const re = /([^\r\n]*)(\r\n|\n|$)/g;
  for (let m = re.exec(text); m && (m[0] !== '' || m.index < text.length); m = re.exec(text)) {
    out.push({ text: m[1], eol: m[2] });
    if (m[2] === '') break;
  }
  return out;
}

const indent = (s: string): number => s.length - s.trimStart().length;
const blank = (s: string): boolean => s.trim() === '' || s.trimStart().startsWith('#');

/** Sets `apiBase: <url>` on every `provider: anthropic` model; throws when there is none. */
export function setContinueApiBase(text: string, url: string): string {
  const lines = splitLines(text);
  const start = lines.findIndex((l) => MODELS.test(l.text));
  if (start < 0) throw new RouteEditError('config.yaml has no top-level "models:" list');
  let end = start + 1;
  const inList = (t: string): boolean => blank(t) || indent(t) > 0 || t.startsWith('-');
  while (end < lines.length && inList(lines[end].text)) end++;
  // Items: [first line, last line] at the sequence's dash indent.
  const items: [number, number][] = [];
  let dash = -1;
  for (let i = start + 1; i < end; i++) {
    const m = ITEM.exec(lines[i].text);
    if (m && (dash < 0 || m[1].length === dash)) {
      dash = m[1].length;
      items.push([i, i]);
    } else if (items.length > 0) items[items.length - 1][1] = i;
  }
  let changed = 0;
  for (const [first, last] of items.reverse()) {
    const keyIndent = dash + 2;
    let provider: number | undefined;
    let apiBase: number | undefined;
    for (let i = first; i <= last; i++) {
      const t = lines[i].text;
      const body = i === first ? (ITEM.exec(t)?.[2] ?? '') : indent(t) === keyIndent ? t.trimStart() : undefined;
      const kv = body === undefined ? undefined : KEY.exec(body);
      if (!kv) continue;
      if (kv[1] === 'provider' && unquote(kv[2]) === 'anthropic') provider = i;
      if (kv[1] === 'apiBase') apiBase = i;
    }
    if (provider === undefined) continue;
    changed++;
    if (apiBase !== undefined) {
      const t = lines[apiBase].text;
      lines[apiBase].text = `${t.slice(0, t.indexOf('apiBase:'))}apiBase: ${url}`;
    } else {
      const eol = lines[provider].eol || (text.includes('\r\n') ? '\r\n' : '\n');
      if (lines[provider].eol === '') lines[provider].eol = eol;
      const line = { text: `${' '.repeat(keyIndent)}apiBase: ${url}`, eol: lines[provider + 1] ? eol : '' };
      lines.splice(provider + 1, 0, line);
    }
  }
  if (changed === 0) throw new RouteEditError('config.yaml has no model with "provider: anthropic"');
  return lines.map((l) => l.text + l.eol).join('');
}
