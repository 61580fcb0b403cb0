/**
 * The Cline and Roo Code task folders of test/fixtures/cline-tasks (written by make-fixtures.mjs
 * there, in the clients' real shapes) replayed through `none`, `default` and `tool-pruning`:
 * every request valid, the user's typed words (`<task>`, `<feedback>`, `<answer>`) verbatim on
 * every call, text-form tool output trimmed (default sends less than none), references kept,
 * and in text-form loops the thinking of every response of the loop sent unchanged.
 */
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayAll } from '../../../src/core/engine/replay';
import { importTranscript } from '../../../src/core/import';
import { checkUserText } from '../../../src/core/request/user-text-check';
import { validateRequest } from '../../../src/core/request/validate';
import type { RequestBody } from '../../../src/core/api/wire';
import { clineTaskFiles, loopThinkingChanged } from '../../bench/cline-tasks';
import { latestThinking } from '../../bench/engine-bench';
import { RetentionTracker } from '../../bench/retention';
import { FIXTURES } from './helpers';

const FILES = clineTaskFiles(path.join(FIXTURES, 'cline-tasks'));
/** The typed words every task of the generator carries (make-fixtures.mjs). */
const TYPED = [/<task>\n[^]*?<\/task>/, /<answer>\n[^]*?<\/answer>/, /<feedback>\n[^]*?<\/feedback>/g];

function typedTexts(s: ReturnType<typeof importTranscript>, upTo: number): string[] {
  const out: string[] = [];
  for (const m of s.messages.slice(0, upTo)) {
    if (m.role !== 'user') continue;
    for (const b of m.blocks) {
      const text =
        b.param.type === 'text'
          ? b.param.text
          : b.param.type === 'tool_result' && typeof b.param.content === 'string'
            ? b.param.content
            : '';
      for (const re of TYPED) for (const x of text.match(re) ?? []) out.push(x);
    }
  }
  return out;
}

/** The last `<environment_details>` block of the messages before `upTo`. */
function typedEnv(s: ReturnType<typeof importTranscript>, upTo: number): string | undefined {
  for (let p = upTo - 1; p >= 0; p--)
    for (const b of s.messages[p].blocks)
      if (b.param.type === 'text' && b.param.text.startsWith('<environment_details>')) return b.param.text;
  return undefined;
}

function sentText(body: RequestBody): string {
  return body.messages
    .map((m) =>
      typeof m.content === 'string'
        ? m.content
        : m.content
            .map((b) => (b.type === 'text' ? b.text : b.type === 'tool_result' ? JSON.stringify(b.content) : ''))
            .join('\n'),
    )
    .join('\n');
}

interface Run {
  /** Characters of the messages sent over all calls. */
  chars: number;
  invalid: string[];
  retention: number;
  /** `<environment_details>` blocks sent whole in the last call (the newest always among them). */
  envCopies: number;
}

const ENV_BLOCK = /<environment_details>[^]*?<\/environment_details>/g;

function run(file: string, strategy: string): Run {
  const imp = importTranscript(file);
  const thinking = imp.messages.some((m) => m.blocks.some((b) => b.kind === 'thinking'));
  const invalid: string[] = [];
  const retention = new RetentionTracker();
  let chars = 0;
  let envCopies = 0;
  replayAll(imp, { strategy }, ({ call, prepared }) => {
    const body = prepared.body;
    const where = `${path.basename(path.dirname(path.dirname(file)))} ${strategy} call ${call.index}`;
    for (const v of validateRequest(body, {
      model: body.model,
      thinking,
      latestAssistantThinking: latestThinking(imp, call.epochStart, call.at),
    }))
      invalid.push(`${where}: ${v.message}`);
    const ut = checkUserText(imp.messages, call.epochStart, call.at, body.messages);
    expect(ut.missing, where).toEqual([]);
    const text = sentText(body);
    // Typed words inside a tool_result's content (Roo) are JSON-escaped in `text`: compare escaped.
    for (const t of typedTexts(imp, call.at))
      expect(text.includes(t) || text.includes(JSON.stringify(t).slice(1, -1)), `${where}: ${t.slice(0, 40)}`).toBe(
        true,
      );
    if (!file.includes('roo-native'))
      expect(loopThinkingChanged(imp, call.epochStart, call.at, body), `${where}: loop thinking`).toBe(false);
    // The newest environment block (Cline re-sends it every turn) reaches the model verbatim on every call.
    const newest = typedEnv(imp, call.at);
    if (newest) expect(text.includes(newest) || text.includes(JSON.stringify(newest).slice(1, -1)), where).toBe(true);
    envCopies = text.match(ENV_BLOCK)?.length ?? 0;
    retention.check(imp.messages, call.at, body);
    chars += JSON.stringify(body.messages).length;
  });
  return { chars, invalid, retention: retention.ratio(), envCopies };
}

describe('Cline and Roo task folders through the strategies', () => {
  it('has the three shapes, each with usage beside it', () => {
    expect(FILES.map((f) => path.basename(path.dirname(path.dirname(f))))).toEqual([
      'cline-native',
      'cline-xml',
      'roo-native',
    ]);
  });

  it.each(FILES)('%s: valid, typed words verbatim, output trimmed, references kept', (file) => {
    const none = run(file, 'none');
    const def = run(file, 'default');
    const pruning = run(file, 'tool-pruning');
    expect([...none.invalid, ...def.invalid, ...pruning.invalid]).toEqual([]);
    expect(def.chars).toBeLessThan(0.8 * none.chars);
    expect(def.retention).toBeGreaterThanOrEqual(0.97);
    // Older copies of the environment block, restated by later ones, were trimmed (none sends every one).
    expect(def.envCopies).toBeLessThan(none.envCopies / 2);
  });
});
