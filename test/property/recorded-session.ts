/**
 * Ground truth and its recording, for the property tests of importers and repairs.
 *
 * A `TrueSession` is what a Claude-Code-like client actually sent: user prompts (with
 * `<system-reminder>` blocks), responses of one or more blocks (thinking or redacted
 * thinking first when thinking is on, maybe interleaved thinking, text, parallel
 * tool_use), and one user message per tool round with all results in completion order
 * (not call order), sometimes followed by user text. `requestAt(k)` is the message list
 * the client sent for response k.
 *
 * `recordJsonl` writes it the way Claude Code's JSONL does: every content block of a
 * response on its own line with the same `message.id`/`requestId` and the usage repeated,
 * each result on its own line as its tool completes, so result lines can sit between the
 * tool_use lines of their response. Quirks model dirty recordings: a result line lost
 * (unparseable), a response's lines recorded twice, a result line recorded twice.
 */
import type { ContentBlockParam, MessageParam } from '../../src/core/session/types';

export interface TrueResponse {
  readonly id: string;
  readonly blocks: ContentBlockParam[];
  /** Tool use ids in completion order (the order the client sent their results). */
  readonly completion: string[];
  /** User text the client sent after the results (interjections, reminders). */
  readonly after: string[];
}

export interface TrueTurn {
  readonly prompt: ContentBlockParam[];
  readonly responses: TrueResponse[];
}

export interface TrueSession {
  readonly thinking: boolean;
  readonly turns: TrueTurn[];
}

export interface Quirks {
  /** Tool use ids whose result line is lost (written unparseable). */
  readonly lost: ReadonlySet<string>;
  /** Response ids whose lines are written twice (a retried write). */
  readonly doubledResponses: ReadonlySet<string>;
  /** Tool use ids whose result line is written twice. */
  readonly doubledResults: ReadonlySet<string>;
  /** Random bits for interleaving result lines between tool_use lines. */
  readonly interleave: readonly number[];
}

export const NO_QUIRKS: Quirks = {
  lost: new Set(),
  doubledResponses: new Set(),
  doubledResults: new Set(),
  interleave: [],
};

export function resultOf(id: string): ContentBlockParam {
  const n = Number(id.replace(/\D/g, '')) || 0;
  return {
    type: 'tool_result',
    tool_use_id: id,
    content: `output of ${id}\n${'line\n'.repeat(n % 7)}`,
    ...(n % 5 === 0 ? { is_error: true } : {}),
  };
}

/** The results message the client sent after a response with tool calls: results in completion order, then its text. */
export function resultsMessage(r: TrueResponse): MessageParam | undefined {
  if (!r.completion.length) return undefined;
  const content: ContentBlockParam[] = r.completion.map(resultOf);
  for (const t of r.after) content.push({ type: 'text', text: t });
  return { role: 'user', content };
}

/** Every response in order, with the messages the client sent for it. */
export function trueCalls(s: TrueSession): { response: TrueResponse; request: MessageParam[] }[] {
  const sent: MessageParam[] = [];
  const out: { response: TrueResponse; request: MessageParam[] }[] = [];
  for (const turn of s.turns) {
    sent.push({ role: 'user', content: turn.prompt });
    for (const r of turn.responses) {
      out.push({ response: r, request: [...sent] });
      sent.push({ role: 'assistant', content: r.blocks });
      const res = resultsMessage(r);
      if (res) sent.push(res);
    }
  }
  return out;
}

const SESSION = '7d3c1c4e-1f6b-4c53-9a43-2b5d4b1f0a11';
const MODEL = 'claude-sonnet-4-5-20250929';

/** Claude Code's JSONL for the session, with the quirks applied. */
export function recordJsonl(s: TrueSession, q: Quirks = NO_QUIRKS): string {
  const lines: string[] = [];
  let uuid = 0;
  let parent: string | null = null;
  let clock = Date.parse('2026-01-13T16:00:00.000Z');
  let bit = 0;
  const nextBit = (): number => q.interleave[bit++ % Math.max(1, q.interleave.length)] ?? 0;
  const line = (rec: Record<string, unknown>): string => {
    const id = `00000000-0000-4000-8000-${String(++uuid).padStart(12, '0')}`;
    const out = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: '/work/app',
      sessionId: SESSION,
      version: '2.1.6',
      gitBranch: 'main',
      ...rec,
      uuid: id,
      timestamp: new Date((clock += 1500)).toISOString(),
    };
    parent = id;
    return JSON.stringify(out);
  };
  const user = (content: ContentBlockParam[] | string, extra: Record<string, unknown> = {}): string =>
    line({ type: 'user', message: { role: 'user', content }, ...extra });
  const resultLine = (id: string): string => {
    if (q.lost.has(id))
      return `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"${id}","type":"tool_result","content":"C:\\Users\\bad escape`;
    return user([resultOf(id)], { toolUseResult: { stdout: 'ok', stderr: '', interrupted: false } });
  };
  for (const turn of s.turns) {
    lines.push(user(turn.prompt));
    for (const r of turn.responses) {
      const writes = (): string[] => {
        const out: string[] = [];
        const pending = [...r.completion];
        const usable = new Set<string>();
        const usage = {
          input_tokens: 9,
          cache_creation_input_tokens: 120,
          cache_read_input_tokens: 14000,
          output_tokens: 40,
        };
        r.blocks.forEach((b, k) => {
          const last = k === r.blocks.length - 1;
          const message = {
            model: MODEL,
            id: r.id,
            type: 'message',
            role: 'assistant',
            content: [b],
            stop_reason: last ? (r.completion.length ? 'tool_use' : 'end_turn') : null,
            stop_sequence: null,
            usage: last ? usage : { ...usage, output_tokens: 1 },
          };
          out.push(line({ message, requestId: `req_${r.id}`, type: 'assistant' }));
          if (b.type === 'tool_use') usable.add(b.id);
          // Tools that finished while the response was still streaming: their results land here.
          while (pending.length && usable.has(pending[0]) && nextBit() === 1) {
            const id = pending.shift()!;
            out.push(resultLine(id));
            if (q.doubledResults.has(id)) out.push(resultLine(id));
          }
        });
        for (const id of pending) {
          out.push(resultLine(id));
          if (q.doubledResults.has(id)) out.push(resultLine(id));
        }
        for (const t of r.after) out.push(user(t));
        return out;
      };
      const w = writes();
      lines.push(...w);
      if (q.doubledResponses.has(r.id)) lines.push(...w.filter((l) => l.includes(`"id":"${r.id}"`)));
    }
  }
  return lines.join('\n') + '\n';
}
