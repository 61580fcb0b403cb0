/**
 * The importer contract (src/core/import/recorded.ts, TranscriptImporter.recorded): a client format
 * registered from outside — here a toy one, written in this test — hands the report its recorded
 * calls, and the report prices them, fits `none` to them and prices every strategy, with no change
 * to src/core/report.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordedUsage, registerImporter } from '../../../src/core/import';
import type { TranscriptImporter, TranscriptInput } from '../../../src/core/import';
import { isRecord } from '../../../src/core/import/util';
import { buildJsonSession, type RawMessage } from '../../../src/core/import/json-messages';
import type { RecordedCall, RecordedTranscript, RecordedUsage } from '../../../src/core/import/recorded';
import { buildReport } from '../../../src/core/report';
import { explainFile } from '../../../src/core/report/explain';
import { callCost } from '../../../src/core/report/recorded';
import type { ImportedSession } from '../../../src/core/session/types';

const MODEL = 'claude-sonnet-4-5-20250929';
const NOTE = 'toy: bills read from each turn';

/** A toy client's file: `{"toy": 1, "session", "model", "turns": [{role, text, id?, at?, bill?}]}`. */
interface ToyTurn {
  readonly role: 'user' | 'assistant';
  readonly text: string;
  readonly id?: string;
  readonly at?: string;
  readonly bill?: { readonly in: number; readonly out: number; readonly write: number; readonly read: number };
}

function toyTurns(input: TranscriptInput): ToyTurn[] {
  return input.json.ok && isRecord(input.json.value) ? (input.json.value.turns as ToyTurn[]) : [];
}

function toyUsage(b: NonNullable<ToyTurn['bill']>): RecordedUsage {
  return recordedUsage({
    input_tokens: b.in,
    output_tokens: b.out,
    cache_creation_input_tokens: b.write,
    cache_read_input_tokens: b.read,
  });
}

function parseToy(input: TranscriptInput): ImportedSession {
  const raws: RawMessage[] = toyTurns(input).map((t, index) => ({
    index,
    role: t.role,
    blocks: [{ type: 'text', text: t.text }],
    rec: { ...t },
  }));
  return buildJsonSession({
    format: 'toy',
    file: input.file,
    raws,
    model: MODEL,
    metaOf: (raw) => {
      const t = raw.rec as unknown as ToyTurn;
      const usage = t.bill ? toyUsage(t.bill) : undefined;
      const response = t.id ? { apiMessageId: `toy:${t.id}`, model: MODEL } : {};
      return { timestamp: t.at, ...response, ...(usage ? { usage } : {}) };
    },
  });
}

/** The toy client's usage, handed over through the contract: one conversation, one call per billed turn. */
function recordedToy(input: TranscriptInput, counted: Set<string>): RecordedTranscript {
  const calls: RecordedCall[] = [];
  let duplicates = 0;
  for (const t of toyTurns(input)) {
    if (!t.bill || !t.id) continue;
    const key = `toy:${t.id}|`;
    if (counted.has(key)) {
      duplicates++;
      continue;
    }
    counted.add(key);
    calls.push({ key, model: MODEL, timestamp: t.at, usage: toyUsage(t.bill) });
  }
  const sessionId = input.json.ok && isRecord(input.json.value) ? String(input.json.value.session) : undefined;
  const session = (): ImportedSession => parseToy(input);
  return { conversations: [{ sessionId, sidechain: false, calls, duplicates, session, notes: [NOTE] }], badLines: 0 };
}

const toyImporter: TranscriptImporter = {
  format: 'toy',
  label: 'Toy',
  expects: '{"toy": 1, "turns": [...]}',
  detect: (input) => input.json.ok && isRecord(input.json.value) && input.json.value.toy === 1,
  parse: parseToy,
  recorded: recordedToy,
  walks: (name) => name.endsWith('.toy'),
};

const FIRST_BILL = { in: 4, out: 20, write: 2800, read: 0 };
const SECOND_BILL = { in: 12, out: 30, write: 20, read: 2800 };
const LONG = 'lorem ipsum dolor sit amet '.repeat(400);
const TOY_FILE = {
  toy: 1,
  session: 'toy-session-1',
  turns: [
    { role: 'user', text: `Read this and answer: ${LONG}`, at: '2026-01-01T10:00:00.000Z' },
    { role: 'assistant', text: 'First answer.', id: 'r1', at: '2026-01-01T10:00:05.000Z', bill: FIRST_BILL },
    { role: 'user', text: 'And a follow-up question?', at: '2026-01-01T10:01:00.000Z' },
    { role: 'assistant', text: 'Second answer.', id: 'r2', at: '2026-01-01T10:01:04.000Z', bill: SECOND_BILL },
  ],
};

let unregister: (() => void) | undefined;
afterEach(() => unregister?.());

function toyDir(copies: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'toy-importer-'));
  for (let i = 0; i < copies; i++) writeFileSync(join(dir, `s${i}.toy`), JSON.stringify(TOY_FILE));
  return dir;
}

describe('a client format registered from outside the report', () => {
  it('has its recorded calls priced, fitted and replayed by the report, with its notes', () => {
    unregister = registerImporter(toyImporter, { first: true });
    const rep = buildReport({ paths: [toyDir(1)], strategies: ['none', 'default'], config: {} });
    expect(rep.skipped).toEqual([]);
    expect(rep.sessions).toHaveLength(1);
    const r = rep.sessions[0];
    expect(r.sessionId).toBe('toy-session-1');
    expect(r.model).toBe(MODEL);
    expect(r.calls).toBe(2);
    expect(r.recorded.inputTokens).toBe(16);
    expect(r.recorded.cacheWriteTokens).toBe(2820);
    expect(r.recorded.cacheReadTokens).toBe(2800);
    // Priced from the model catalog, call by call, as the toy recorded them.
    const bills = TOY_FILE.turns.flatMap((t) => ('bill' in t && t.bill ? [t.bill] : []));
    const priced = bills.map((b) => callCost(MODEL, toyUsage(b)));
    expect(r.recorded.inputCost).toBeCloseTo(
      priced.reduce((a, c) => a + c.input, 0),
      12,
    );
    expect(r.recorded.outputCost).toBeCloseTo(
      priced.reduce((a, c) => a + c.output, 0),
      12,
    );
    // Replayed: the fit found the billed responses in the toy's import, and every strategy is priced.
    // The import carries each response's usage (as the contract asks), so the replay sizes its blocks off it.
    expect(r.fit.status).toBe('anchored');
    expect(Math.abs(r.fit.error ?? 1)).toBeLessThan(0.05);
    expect(Object.keys(r.strategies).sort()).toEqual(['default', 'none']);
    expect(r.strategies.none.inputCost).toBeGreaterThan(0.95 * r.recorded.inputCost);
    expect(r.fit.notes).toContain(NOTE);
  });

  it('counts a response copied into a second file once (the dedupe keys go through `counted`)', () => {
    unregister = registerImporter(toyImporter, { first: true });
    const rep = buildReport({ paths: [toyDir(2)], strategies: ['none'], config: {} });
    const billed = rep.sessions.reduce((a, s) => a + s.calls, 0);
    expect(billed).toBe(2);
    expect(rep.sessions.reduce((a, s) => a + s.duplicates, 0)).toBe(2);
  });

  it('is not read at all once unregistered: the walk skips its files and a named one is no transcript', () => {
    const dir = toyDir(1);
    expect(buildReport({ paths: [dir], strategies: ['none'], config: {} }).sessions).toEqual([]);
    const named = buildReport({ paths: [join(dir, 's0.toy')], strategies: ['none'], config: {} });
    expect(named.sessions).toEqual([]);
    expect(named.skipped[0]?.reason).toMatch(/not a .* transcript/);
  });

  it('is explained call by call by `report --explain` too', () => {
    unregister = registerImporter(toyImporter, { first: true });
    const file = join(toyDir(1), 's0.toy');
    const [explained] = explainFile(file, JSON.stringify(TOY_FILE), 'toy-session');
    expect(explained.sessionId).toBe('toy-session-1');
    expect(explained.calls.map((c) => c.recorded?.read)).toEqual([0, 2800]);
  });
});

describe('the report', () => {
  it('names no client format: no importer module imported, no branch on `format`', () => {
    const dir = 'src/core/report';
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const text = readFileSync(join(dir, f), 'utf8');
      const imports = [...text.matchAll(/from '\.\.\/import\/([^']+)'/g)].map((m) => m[1]);
      // The contract (detect, recorded), shared line reading and errors; never one format's module.
      expect(
        imports.filter((m) => !['recorded', 'client-events', 'json-lines', 'errors'].includes(m)),
        f,
      ).toEqual([]);
      expect(text, f).not.toMatch(/\.format\s*[!=]==/);
    }
  });
});
