/**
 * A deterministic stand-in "model" for the offline demo and for loop tests.
 *
 * Given the conversation since the latest user prompt and the tools offered,
 * it explores like a cautious agent: list_files, then read_file on the two
 * most relevant files (parallel calls), then search for the prompt's key word
 * (and trim_tool_result on a very large result, when offered), then answers
 * with a summary that cites what it read. All state is derived from the
 * conversation, so the same request always gets the same answer. Tool errors
 * (`is_error: true`) are noticed and reported; it never writes or runs commands.
 *
 * Tool inputs are filled from each tool's `input_schema`: properties named like
 * a path, a query, an id or a command get the matching value; a required
 * property it cannot fill makes it skip that tool.
 */
import { TRIM_MARKER } from '../core/trimming/summary-text';
import type { MessagesBody, ScriptedBlock, ScriptedTurn, WireBlock, WireTool } from './types';

/** More assistant rounds than this after one prompt and the policy answers regardless. */
const MAX_ROUNDS = 5;
/** How many files it reads. */
const FILES_TO_READ = 2;
/** A tool result at least this long is worth trimming once read. */
const TRIM_MIN_CHARS = 6000;
const PREVIEW_CHARS = 100;
const STOPWORDS = new Set(
  (
    'what which where when this that there these those with from into about does have please could would should ' +
    'explain tell show give find look their them your code file files the and for are how why'
  ).split(' '),
);
const SKIP_EXT = /\.(png|jpe?g|gif|ico|svg|woff2?|ttf|zip|gz|tgz|lock|map|min\.js|pdf|bin|exe)$/i;
const FILE_RE = /[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.[A-Za-z0-9]{1,10}\b/g;

interface Call {
  readonly id: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
  result?: { text: string; isError: boolean };
}

interface Values {
  readonly path?: string;
  readonly query?: string;
  readonly id?: string;
  readonly command?: string;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: unknown) =>
      b && typeof b === 'object' && (b as WireBlock).type === 'text' ? String((b as WireBlock).text) : '',
    )
    .join('\n');
}

function blocks(content: string | readonly WireBlock[]): readonly WireBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function fillInput(tool: WireTool | undefined, values: Values): Record<string, unknown> | undefined {
  if (!tool) return undefined;
  const schema = (tool.input_schema ?? {}) as { properties?: Record<string, { type?: string }>; required?: string[] };
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const input: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(props)) {
    let value: unknown;
    // Flags (e.g. search's `regex`) follow their schema type, never the query text.
    if (prop?.type === 'boolean') {
      if (required.has(name)) input[name] = false;
      continue;
    }
    if (/tool_?use_?id|^id$|_id$|block/i.test(name)) value = values.id;
    else if (/path|file|dir|folder|root|cwd/i.test(name)) value = values.path;
    else if (/pattern|query|regex|search|term|text|keyword|needle/i.test(name)) value = values.query;
    else if (/command|cmd/i.test(name)) value = values.command;
    if (value === undefined && required.has(name)) {
      if (prop?.type === 'boolean') value = false;
      else if (prop?.type === 'integer' || prop?.type === 'number') value = 200;
      else return undefined;
    }
    if (value !== undefined) input[name] = value;
  }
  for (const name of required) if (!(name in input)) return undefined;
  return input;
}

function keyword(prompt: string): string {
  const words = prompt.toLowerCase().match(/[a-z_][a-z0-9_]{3,}/g) ?? [];
  let best = '';
  for (const w of words) if (!STOPWORDS.has(w) && w.length > best.length) best = w;
  return best || 'TODO';
}

function candidates(prompt: string, listing: string): string[] {
  const promptWords = new Set((prompt.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []).filter((w) => !STOPWORDS.has(w)));
  const found = new Set<string>();
  for (const source of [prompt, listing])
    for (const m of source.match(FILE_RE) ?? []) found.add(m.replace(/^\.\//, ''));
  const score = (p: string): number => {
    const base = p.split('/').pop()!.toLowerCase();
    let s = 0;
    if (prompt.includes(p)) s += 20;
    for (const w of base.split(/[^a-z0-9]+/)) if (promptWords.has(w)) s += 10;
    if (/^readme\.md$/.test(base)) s += 5;
    if (base === 'package.json') s += 4;
    if (/\.(ts|tsx|js|py|go|rs|md)$/.test(base)) s += 2;
    return s - p.split('/').length;
  };
  return [...found]
    .filter((p) => !p.startsWith('http') && !p.includes('..') && !/node_modules|\.git\//.test(p) && !SKIP_EXT.test(p))
    .sort((a, b) => score(b) - score(a) || a.localeCompare(b))
    .slice(0, FILES_TO_READ);
}

function preview(text: string): string {
  const line =
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS)}…` : line;
}

function toolUse(name: string, input: Record<string, unknown>): ScriptedBlock {
  return { type: 'tool_use', name, input };
}

export function demoTurn(body: MessagesBody): ScriptedTurn {
  const messages = body.messages;
  let promptIndex = -1;
  messages.forEach((m, i) => {
    if (m.role !== 'user') return;
    const bs = blocks(m.content);
    if (bs.some((b) => b.type === 'text') && !bs.some((b) => b.type === 'tool_result')) promptIndex = i;
  });
  const prompt = promptIndex >= 0 ? textOf(messages[promptIndex].content) : '';
  const calls = new Map<string, Call>();
  let rounds = 0;
  for (const m of messages.slice(promptIndex + 1)) {
    if (m.role === 'assistant') rounds++;
    for (const b of blocks(m.content)) {
      if (b.type === 'tool_use')
        calls.set(String(b.id), {
          id: String(b.id),
          name: String(b.name),
          input: (b.input ?? {}) as Record<string, unknown>,
        });
      if (b.type === 'tool_result') {
        const call = calls.get(String(b.tool_use_id));
        if (call) call.result = { text: textOf(b.content), isError: b.is_error === true };
      }
    }
  }
  const tools = new Map<string, WireTool>((body.tools ?? []).map((t) => [String(t.name), t]));
  const called = (name: string): Call[] => [...calls.values()].filter((c) => c.name === name);
  const thinking = body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive';
  const think = (plan: string): ScriptedBlock[] =>
    thinking ? [{ type: 'thinking', thinking: `The user asked: "${preview(prompt)}". ${plan}` }] : [];

  if (rounds < MAX_ROUNDS) {
    if (tools.has('list_files') && called('list_files').length === 0) {
      const input = fillInput(tools.get('list_files'), { path: '.' });
      if (input) {
        return {
          content: [
            ...think('First I will see which files exist.'),
            { type: 'text', text: 'Let me look at the files in the workspace first.' },
            toolUse('list_files', input),
          ],
        };
      }
    }
    if (tools.has('read_file') && called('read_file').length === 0) {
      const listing = called('list_files')
        .map((c) => (c.result && !c.result.isError ? c.result.text : ''))
        .join('\n');
      const files = candidates(prompt, listing);
      const reads = files.flatMap((path) => {
        const input = fillInput(tools.get('read_file'), { path });
        return input ? [toolUse('read_file', input)] : [];
      });
      if (reads.length > 0) {
        return {
          content: [
            ...think(`The most relevant files look like ${files.join(' and ')}.`),
            { type: 'text', text: `I'll read ${files.map((f) => `\`${f}\``).join(' and ')}.` },
            ...reads,
          ],
        };
      }
    }
    if (tools.has('search') && called('search').length === 0) {
      const kw = keyword(prompt);
      const search = fillInput(tools.get('search'), { query: kw, path: '.' });
      const big = [...calls.values()].find(
        (c) => c.result && !c.result.isError && c.result.text.length >= TRIM_MIN_CHARS,
      );
      const trim =
        big && tools.has('trim_tool_result') ? fillInput(tools.get('trim_tool_result'), { id: big.id }) : undefined;
      if (search) {
        const content: ScriptedBlock[] = [
          ...think(`Searching for "${kw}" should show where it is used.`),
          { type: 'text', text: `Now I'll search the workspace for "${kw}".` },
          toolUse('search', search),
        ];
        if (trim) content.push(toolUse('trim_tool_result', trim));
        return { content };
      }
    }
  }
  return {
    content: [...think('I have enough to answer.'), { type: 'text', text: summary(prompt, calls, tools.size) }],
  };
}

/** What a call was about: the query of a search, else the path, else its first argument. */
function targetOf(c: Call): string {
  const entries = Object.entries(c.input);
  const pick = (re: RegExp): unknown => entries.find(([k]) => re.test(k))?.[1];
  const query = pick(/pattern|query|regex|search|term|keyword|needle/i);
  const path = pick(/path|file|dir|folder/i);
  const value = c.name === 'search' ? (query ?? path) : (path ?? query);
  return String(value ?? entries[0]?.[1] ?? '');
}

function summary(prompt: string, calls: ReadonlyMap<string, Call>, toolCount: number): string {
  const lines: string[] = [];
  const all = [...calls.values()];
  if (toolCount === 0 || all.length === 0) {
    return (
      'I could not inspect the workspace (no file tools were available), so this answer is based only on your ' +
      `message: "${preview(prompt)}".`
    );
  }
  lines.push(`Here is what I found about "${preview(prompt)}":`, '');
  const read: string[] = [];
  for (const c of all) {
    const r = c.result;
    const target = targetOf(c);
    if (!r) {
      lines.push(`- \`${c.name}\` on \`${target}\` returned no result.`);
    } else if (r.isError) {
      lines.push(`- \`${c.name}\` failed for \`${target}\`: ${preview(r.text) || 'unknown error'}.`);
    } else if (c.name === 'list_files') {
      const entries = r.text.split('\n').filter((l) => l.trim() !== '');
      lines.push(
        `- The workspace listing has ${entries.length} entries (for example ${entries
          .slice(0, 3)
          .map((e) => `\`${e.trim()}\``)
          .join(', ')}).`,
      );
    } else if (r.text.startsWith(TRIM_MARKER)) {
      // A placeholder is not the tool's output: quoting it as file content would be a made-up fact.
      lines.push(`- \`${target}\` (${c.name}) was trimmed from my context after I used it; I do not quote it again.`);
    } else if (c.name === 'read_file') {
      read.push(target);
      lines.push(`- \`${target}\` has ${r.text.split('\n').length} lines and begins with: "${preview(r.text)}".`);
    } else if (c.name === 'search') {
      const hits = r.text.startsWith('No matches') ? [] : r.text.split('\n').filter((l) => l.trim() !== '');
      lines.push(
        hits.length === 0
          ? `- Searching for "${target}" found nothing.`
          : `- Searching for "${target}" found ${hits.length} matching lines, first: "${preview(hits[0])}".`,
      );
    } else {
      lines.push(`- \`${c.name}\` done: ${preview(r.text)}`);
    }
  }
  lines.push('');
  lines.push(
    read.length > 0
      ? `Summary: the answer centers on ${read.map((f) => `\`${f}\``).join(' and ')}; the details above are taken ` +
          'from those files.'
      : 'Summary: I could not read any file, so I can only report what the listing and search showed.',
  );
  return lines.join('\n');
}

/** The `echo` fallback: the last user message's text, block types in brackets for the rest. */
export function echoTurn(body: MessagesBody): ScriptedTurn {
  const last = [...body.messages].reverse().find((m) => m.role === 'user');
  let text = '';
  if (last) {
    if (typeof last.content === 'string') text = last.content;
    else
      text = last.content
        .map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : `[${b.type}]`))
        .join(' ');
  }
  return { content: [{ type: 'text', text: `echo: ${text || '(nothing)'}` }] };
}
