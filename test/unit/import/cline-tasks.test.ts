/**
 * The Cline and Roo Code task folders of test/fixtures/cline-tasks (written by make-fixtures.mjs
 * there, in the clients' real shapes) replayed through `none`, `default` and `tool-pruning`:
 * every request valid, the user's typed words (`<task>`, `<feedback>`, `<answer>`) verbatim on
 * every call, text-form tool output trimmed (default sends less than none), references kept,
 * the latest response's thinking unchanged (the API's rule; older responses' thinking may go).
 */
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayAll } from '../../../src/core/engine/replay';
import * as fs from 'node:fs';
import { importTranscript, parseTranscript } from '../../../src/core/import';
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
    // The latest response's thinking is sent as the model produced it (validateRequest above, the API's rule);
    // earlier responses' thinking may go (counted by the bench as "loop thinking changed").
    if (strategy === 'none') expect(loopThinkingChanged(imp, call.epochStart, call.at, body), where).toBe(false);
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

  it("old rounds' thinking goes on a model that bills it (Opus 4.5), stays on one that drops it (Sonnet 4.5)", () => {
    const file = FILES.find((f) => f.includes('cline-native'))!;
    const sonnet = fs.readFileSync(file, 'utf8');
    const thinkingSent = (json: string): { sent: number; recorded: number; latestKept: boolean } => {
      const imp = parseTranscript(json, 'api_conversation_history.json');
      let last: RequestBody | undefined;
      replayAll(imp, { strategy: 'default' }, ({ prepared }) => (last = prepared.body));
      const assistants = last!.messages.filter((m) => m.role === 'assistant');
      const thinking = (m: (typeof assistants)[number]): number =>
        typeof m.content === 'string' ? 0 : m.content.filter((b) => b.type === 'thinking').length;
      const recorded = imp.messages.filter(
        (m) => m.role === 'assistant' && m.blocks.some((b) => b.kind === 'thinking'),
      );
      return {
        sent: assistants.reduce((a, m) => a + thinking(m), 0),
        recorded: recorded.length - 1,
        latestKept: thinking(assistants.at(-1)!) === 1,
      };
    };
    const kept = thinkingSent(sonnet);
    expect(kept.sent).toBe(kept.recorded);
    const opus = thinkingSent(sonnet.replaceAll('claude-sonnet-4-5-20250929', 'claude-opus-4-5-20251101'));
    expect(opus.latestKept).toBe(true);
    expect(opus.sent).toBeLessThan(opus.recorded / 2);
  });
});
