/**
 * Cline and Roo Code tasks (test/fixtures/cline-tasks: Cline's text-form results, the classic
 * two-block form, Roo's native tool_result form; more folders with TRIMLINE_CLINE_DIR), replayed
 * through `none`, `default` and `tool-pruning` with their usage from `ui_messages.json`, priced
 * by the same simulator as the main table (engine-bench.ts). Besides cost, references and
 * invalid requests: the user's words (every `<task>`, `<feedback>`, `<answer>` and typed text)
 * verbatim on every call, and "loop thinking changed": requests where the thinking of an earlier
 * response of the loop being continued (after the last real prompt) was dropped. The API checks
 * only the latest response's thinking (counted as invalid); default drops older responses'
 * thinking on models that bill it (Opus 4.5 on), so this column is informational.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { replay } from '../../src/core/engine';
import { importTranscript } from '../../src/core/import';
import { clineRecorded } from '../../src/core/import/cline-usage';
import { sameBlock } from '../../src/core/api/blocks';
import type { RequestBody } from '../../src/core/api/wire';
import type { ContentBlockParam, ImportedSession } from '../../src/core/session/types';
import { isPrompt } from '../../src/core/trimming/message-index';
import { aggregate, CONTENDERS, runOne, type Row } from './engine-bench';
import { pct } from './report';
import { setupSession } from './session-setup';

const DIR = 'test/fixtures/cline-tasks';
const NAMES = ['none', 'default', 'tool-pruning'];

/** Every `api_conversation_history.json` under `dir`. */
export function clineTaskFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...clineTaskFiles(p));
    else if (e === 'api_conversation_history.json') out.push(p);
  }
  return out.sort();
}

function thinkingOf(blocks: readonly ContentBlockParam[]): ContentBlockParam[] {
  return blocks.filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking');
}

/**
 * Requests where an assistant message of the loop being continued (after the last real prompt)
 * carries thinking other than its response's: matched in order from the end of the request.
 */
export function loopThinkingChanged(imp: ImportedSession, from: number, at: number, body: RequestBody): boolean {
  let start = from;
  for (let p = at - 1; p >= from; p--)
    if (isPrompt(imp.messages[p])) {
      start = p;
      break;
    }
  const recorded = imp.messages
    .slice(start, at)
    .filter((m) => m.role === 'assistant')
    .map((m) => thinkingOf(m.blocks.map((b) => b.param)));
  const sent = body.messages
    .filter((m) => m.role === 'assistant')
    .map((m) => (typeof m.content === 'string' ? [] : thinkingOf(m.content)));
  for (let k = 1; k <= recorded.length; k++) {
    const want = recorded[recorded.length - k];
    const got = sent[sent.length - k] ?? [];
    if (want.length !== got.length || want.some((b, i) => !sameBlock(b, got[i]))) return true;
  }
  return false;
}

export function clineTasksSection(
  log: (s: string) => void,
  dir = process.env.TRIMLINE_CLINE_DIR ?? DIR,
): { md: string[]; rows: Row[] } {
  const rows: Row[] = [];
  const loopChanged = new Map<string, number>();
  const contenders = CONTENDERS.filter((c) => NAMES.includes(c.name));
  for (const file of clineTaskFiles(dir)) {
    const rec = clineRecorded(file, importTranscript(file), new Set());
    if (!rec.ok) continue;
    const s = { ...setupSession(rec.imp), name: file.slice(dir.length + 1).split('/')[0] };
    for (const c of contenders) {
      const r = runOne(s, c).row;
      rows.push(r);
      let changed = 0;
      for (const step of replay(s.imp, { strategy: c.spec, config: c.config })) {
        if (loopThinkingChanged(s.imp, step.call.epochStart, step.call.at, step.prepared.body)) changed++;
      }
      loopChanged.set(`${s.name}|${c.name}`, changed);
      log(
        `cline ${s.name} ${c.name}: cost ${r.inputCost.toFixed(4)}, invalid ${r.invalid}, loop thinking changed ${changed}`,
      );
    }
  }
  const lines = [
    '## Cline and Roo Code tasks',
    '',
    `Task folders in \`${dir}\` (test/bench/cline-tasks.ts): Cline's text-form results, the classic two-block form and Roo's native tool_result form, with the usage of their \`ui_messages.json\`.`,
    '',
    '| task | calls | strategy | cost vs none | retention (used ids) | user text kept | calls losing user text | invalid | loop thinking changed |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const none = rows.find((x) => x.transcript === r.transcript && x.contender === 'none')!;
    const kept = r.userTextNeeded ? r.userTextKept / r.userTextNeeded : 1;
    lines.push(
      `| ${r.transcript} | ${r.calls} | ${r.contender} | ${pct(r.inputCost / none.inputCost)} | ${pct(r.retention)} (${r.needed}) | ${pct(kept)} | ${r.callsLosingUserText} | ${r.invalid} | ${loopChanged.get(`${r.transcript}|${r.contender}`) ?? 0} |`,
    );
  }
  for (const a of aggregate(rows))
    lines.push(
      `| all | ${a.calls} | ${a.contender} | ${pct(a.costVsNone)} | ${pct(a.retention)} | ${pct(a.userText)} | ${a.callsLosingUserText} | ${a.invalid} | |`,
    );
  lines.push('');
  return { md: lines, rows };
}
