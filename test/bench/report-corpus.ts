/**
 * A synthetic projects directory for the report benchmark: the transcript
 * fixtures copied until the corpus reaches a size, each copy with fresh ids
 * (session, message, request, tool use and agent ids, so no response is
 * counted twice and every file is its own session) and fresh contents (digits
 * in message contents rotated, so no content is shared between copies), with
 * every length unchanged (the recorded usage still fits the text).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Fixture folders copied into every copy. */
const SOURCES: readonly string[] = ['test/fixtures/transcripts/m-claude', 'test/fixtures/transcripts/mit-samples'];
/** Bumped when the generator changes: an older corpus on disk is rebuilt. */
const CORPUS_VERSION = 1;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const API_ID = /\b(msg|req|toolu)_([0-9A-Za-z]{4})/g;
const AGENT_ID = /("agentId":"|agent-)([0-9a-f]{7})\b/g;

/** 32-bit mix of a copy number into a hex segment of the same length. */
function remix(hex: string, copy: number): string {
  const v = (parseInt(hex, 16) ^ Math.imul(copy + 1, 0x9e3779b1)) >>> 0;
  return v.toString(16).padStart(8, '0').slice(-hex.length);
}

/** Ids of one copy: every id changes, lengths do not. */
function freshIds(text: string, copy: number): string {
  const tag = (copy + 1).toString(36).padStart(4, '0').slice(-4);
  return text
    .replace(UUID, (u) => remix(u.slice(0, 8), copy) + u.slice(8))
    .replace(API_ID, (_m, p: string) => `${p}_${tag}`)
    .replace(AGENT_ID, (_m, p: string, id: string) => p + remix(id, copy));
}

/** Digits of message contents rotated by the copy number (usage and ids untouched). */
function freshContent(value: unknown, copy: number): unknown {
  if (typeof value === 'string') return value.replace(/[0-9]/g, (d) => String((Number(d) + copy + 1) % 10));
  if (Array.isArray(value)) return value.map((v) => freshContent(v, copy));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[k] = k === 'id' || k === 'tool_use_id' || k === 'signature' ? v : freshContent(v, copy);
    return out;
  }
  return value;
}

function copyLine(line: string, copy: number): string {
  let rec: unknown;
  try {
    rec = JSON.parse(line);
  } catch {
    return freshIds(line, copy);
  }
  const msg = (rec as { message?: { content?: unknown } }).message;
  if (msg && msg.content !== undefined) msg.content = freshContent(msg.content, copy);
  return freshIds(JSON.stringify(rec), copy);
}

function copyFile(text: string, name: string, copy: number): string {
  if (!name.endsWith('.jsonl')) return freshIds(text, copy);
  return text
    .split('\n')
    .map((l) => (l.trim() ? copyLine(l, copy) : l))
    .join('\n');
}

export interface Corpus {
  readonly dir: string;
  readonly bytes: number;
  readonly files: number;
  readonly copies: number;
}

function sizeOf(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || e.name === 'corpus.json') continue;
    bytes += statSync(join(e.parentPath, e.name)).size;
    files++;
  }
  return { bytes, files };
}

/** The corpus of at least `minBytes` (built once, reused while the generator and size are the same). */
export function reportCorpus(minBytes: number, root = join(tmpdir(), 'trimline-report-bench')): Corpus {
  const marker = join(root, 'corpus.json');
  const want = JSON.stringify({ version: CORPUS_VERSION, minBytes });
  if (existsSync(marker) && readFileSync(marker, 'utf8') === want) {
    const s = sizeOf(root);
    return { dir: root, ...s, copies: readdirSync(root).filter((d) => d.startsWith('copy-')).length };
  }
  rmSync(root, { recursive: true, force: true });
  const sources = SOURCES.map((d) => resolve(d)).map((dir) => ({
    dir,
    names: readdirSync(dir).filter((n) => !n.endsWith('.md')),
  }));
  let bytes = 0;
  let files = 0;
  let copy = 0;
  for (; bytes < minBytes; copy++) {
    for (const s of sources) {
      const out = join(root, `copy-${String(copy).padStart(3, '0')}`, s.dir.split('/').pop() ?? 'x');
      mkdirSync(out, { recursive: true });
      for (const name of s.names) {
        const text = copyFile(readFileSync(join(s.dir, name), 'utf8'), name, copy);
        writeFileSync(join(out, freshIds(name, copy)), text);
        bytes += Buffer.byteLength(text);
        files++;
      }
    }
  }
  writeFileSync(marker, want);
  return { dir: root, bytes, files, copies: copy };
}
