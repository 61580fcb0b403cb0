/**
 * The stream validator (request/validate-stream.ts) is an optimization only: over
 * random sequences of requests that grow, change an earlier message, lose their tail,
 * move breakpoints, switch TTLs or thinking, and break rules on purpose (roles, empty
 * text, unanswered calls, stray results, duplicate ids, thinking out of place, too many
 * or misordered breakpoints, lose a block of the user's words the request must carry, or
 * carry a copy of one), it returns exactly what validateRequest returns for each.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContentBlockParam, MessageParam } from '../../src/core/session/types';
import type { RequestBody } from '../../src/core/api/wire';
import { validateRequest } from '../../src/core/request/validate';
import { RequestStreamValidator } from '../../src/core/request/validate-stream';
import type { RequiredUserText } from '../../src/core/request/user-text-carried';

const RUNS = Math.max(100, Math.floor(Number(process.env.TRIMLINE_PROP_RUNS ?? 10_000) / 20));

type Kind = 'text' | 'blank' | 'use' | 'result' | 'stray' | 'thinking' | 'nested';
type Op =
  | { t: 'turn'; uses: number; extra: Kind[]; answer: boolean }
  | { t: 'user'; kinds: Kind[] }
  | { t: 'replace'; pick: number; kinds: Kind[] }
  | { t: 'pop' }
  | { t: 'mark'; pick: number; ttl: '5m' | '1h'; move: boolean }
  | { t: 'system'; ttl: '5m' | '1h' | 'none' }
  | { t: 'call'; thinking: boolean; latest: 'same' | 'other' | 'none'; words: number };

const kind = fc.constantFrom<Kind>(
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'blank',
  'use',
  'result',
  'stray',
  'thinking',
  'nested',
);
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant('turn' as const),
      uses: fc.integer({ min: 0, max: 2 }),
      extra: fc.oneof(
        { weight: 4, arbitrary: fc.constant<Kind[]>([]) },
        { weight: 1, arbitrary: fc.array(kind, { maxLength: 2 }) },
      ),
      answer: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant('user' as const), kinds: fc.array(kind, { minLength: 0, maxLength: 3 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('replace' as const),
      pick: fc.nat(),
      kinds: fc.oneof(
        { weight: 3, arbitrary: fc.constant<Kind[]>([]) },
        { weight: 1, arbitrary: fc.array(kind, { minLength: 0, maxLength: 3 }) },
      ),
    }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('pop' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('mark' as const),
      pick: fc.nat(),
      ttl: fc.constantFrom<'5m' | '1h'>('5m', '5m', '1h'),
      move: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('system' as const),
      ttl: fc.constantFrom<'5m' | '1h' | 'none'>('5m', '1h', 'none'),
    }),
  },
  {
    weight: 12,
    arbitrary: fc.record({
      t: fc.constant('call' as const),
      thinking: fc.constantFrom(false, false, false, true),
      latest: fc.constantFrom<'same' | 'other' | 'none'>('same', 'same', 'same', 'other', 'none'),
      words: fc.nat(),
    }),
  },
);

let ids = 0;
function block(k: Kind, openUses: string[]): ContentBlockParam {
  switch (k) {
    case 'text':
      return { type: 'text', text: `t${ids++}` };
    case 'blank':
      return { type: 'text', text: ' ' };
    case 'use':
      return { type: 'tool_use', id: `u${ids++}`, name: 'read', input: {} };
    case 'result':
      return { type: 'tool_result', tool_use_id: openUses.shift() ?? `u${ids++}`, content: 'ok' };
    case 'stray':
      return { type: 'tool_result', tool_use_id: 'u0', content: 'stray' };
    case 'thinking':
      return { type: 'thinking', thinking: 'hm', signature: 'sig' };
    case 'nested':
      return { type: 'tool_result', tool_use_id: openUses.shift() ?? 'u1', content: [{ type: 'text', text: '' }] };
  }
}

/**
 * The text blocks of the request's user messages (the user's words a later call requires, by object as the builder's
 * log blocks).
 */
function userWords(messages: readonly MessageParam[]): ContentBlockParam[] {
  return messages.flatMap((m) =>
    m.role === 'user' && typeof m.content !== 'string'
      ? m.content.filter((b) => b.type === 'text' && b.text.trim() !== '')
      : [],
  );
}

describe('stream validator', () => {
  const streams: RequestStreamValidator[] = [];
  let lostSeen = 0;
  it('answers exactly what the full validator answers, request after request', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), (ops) => {
        ids = 0;
        const stream = new RequestStreamValidator();
        // A call requires the words the previous call sent: a replaced or popped message loses some.
        let words: ContentBlockParam[] = [];
        streams.push(stream);
        let messages: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'task' }] }];
        let system: RequestBody['system'] = [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }];
        for (const o of ops) {
          if (o.t === 'turn') {
            const uses: ContentBlockParam[] = Array.from({ length: o.uses }, () => block('use', []));
            const thinking: ContentBlockParam[] = o.extra.includes('thinking') ? [block('thinking', [])] : [];
            messages = [
              ...messages,
              {
                role: 'assistant',
                content: [
                  ...thinking,
                  { type: 'text', text: `a${ids++}` },
                  ...uses,
                  ...o.extra.filter((k) => k !== 'thinking').map((k) => block(k, [])),
                ],
              },
            ];
            const open = o.answer ? uses.map((u) => (u.type === 'tool_use' ? u.id : '')) : [];
            const results = [...open].map(() => block('result', open));
            messages = [
              ...messages,
              { role: 'user', content: results.length ? results : [{ type: 'text', text: `next${ids++}` }] },
            ];
          } else if (o.t === 'user') {
            messages = [...messages, { role: 'user', content: o.kinds.map((k) => block(k, [])) }];
          } else if (o.t === 'replace' && messages.length) {
            // Mostly one of the last few messages (where a trim or a repair changes a request).
            const i =
              messages.length - 1 - (o.pick % Math.min(messages.length, o.pick % 3 === 0 ? messages.length : 4));
            messages = messages.map((m, j) =>
              j === i
                ? ({
                    role: m.role,
                    content: o.kinds.length ? o.kinds.map((k) => block(k, [])) : [{ type: 'text', text: `r${ids++}` }],
                  } as MessageParam)
                : m,
            );
          } else if (o.t === 'pop') {
            messages = messages.slice(0, -1);
          } else if (o.t === 'mark' && messages.length) {
            // Moving a breakpoint (as the planner does): the other marks go, on copies of their messages.
            if (o.move)
              messages = messages.map((m) =>
                typeof m.content !== 'string' && m.content.some((b) => 'cache_control' in b)
                  ? ({
                      role: m.role,
                      content: m.content.map((b) => {
                        const { cache_control: _cc, ...rest } = b as ContentBlockParam & { cache_control?: unknown };
                        return rest as ContentBlockParam;
                      }),
                    } as MessageParam)
                  : m,
              );
            const i = o.pick % messages.length;
            const m = messages[i];
            if (typeof m.content !== 'string' && m.content.length) {
              const content = [...m.content];
              const b = (o.pick >> 3) % content.length;
              content[b] = {
                ...content[b],
                cache_control: o.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' },
              } as ContentBlockParam;
              messages = messages.map((x, j) => (j === i ? ({ role: m.role, content } as MessageParam) : x));
            }
          } else if (o.t === 'system') {
            system = [
              {
                type: 'text',
                text: 'sys',
                ...(o.ttl === 'none'
                  ? {}
                  : {
                      cache_control:
                        o.ttl === '1h'
                          ? { type: 'ephemeral' as const, ttl: '1h' as const }
                          : { type: 'ephemeral' as const },
                    }),
              },
            ];
          } else if (o.t === 'call') {
            const body: RequestBody = { model: 'claude-sonnet-4-5', max_tokens: 100, system, messages };
            const last = [...messages].reverse().find((m) => m.role === 'assistant');
            const lastThinking =
              last && typeof last.content !== 'string' ? last.content.filter((b) => b.type === 'thinking') : [];
            const latest =
              o.latest === 'none'
                ? undefined
                : o.latest === 'same'
                  ? lastThinking
                  : [{ type: 'thinking', thinking: 'other', signature: 's' } as ContentBlockParam];
            const required: RequiredUserText[] =
              o.words % 6 === 0 ? [] : words.map((param, position) => ({ position, param }));
            // Sometimes a copy of a word (same text, another object), or a word never sent.
            if (o.words % 11 === 1 && words.length)
              required.push({
                position: 0,
                param: { type: 'text', text: (words[o.words % words.length] as { text: string }).text },
              });
            if (o.words % 17 === 2) required.push({ position: 0, param: { type: 'text', text: 'never sent' } });
            const opts = {
              model: body.model,
              thinking: o.thinking,
              latestAssistantThinking: latest,
              userText: required,
            };
            const got = stream.validate(body, opts);
            expect(got).toEqual(validateRequest(body, opts));
            if (got.some((v) => v.rule === 'user-text-lost')) lostSeen++;
            words = userWords(messages);
          }
        }
      }),
      { numRuns: RUNS },
    );
    // Not vacuous: a good share of the requests were answered by the shortcut, and some lost the user's words.
    expect(streams.reduce((n, s) => n + s.shortcuts, 0)).toBeGreaterThan(RUNS / 4);
    expect(lostSeen).toBeGreaterThan(RUNS / 20);
  });

  it('agrees on the cases the shortcut must not miss', () => {
    const task: MessageParam = { role: 'user', content: [{ type: 'text', text: 'task' }] };
    const call = (id: string): MessageParam => ({
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'read', input: {} }],
    });
    const answer = (id: string, cc?: '5m' | '1h'): MessageParam => ({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: id,
          content: 'ok',
          ...(cc
            ? {
                cache_control:
                  cc === '1h' ? { type: 'ephemeral' as const, ttl: '1h' as const } : { type: 'ephemeral' as const },
              }
            : {}),
        },
      ],
    });
    const text = (t: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text: t }] });
    const sys = (ttl: '5m' | '1h', t = 's'): RequestBody['system'] => [
      { type: 'text', text: t, cache_control: ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' } },
    ];
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map(call);
    const thinkingCall: MessageParam = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 't1', signature: 's1' },
        { type: 'tool_use', id: 'g', name: 'read', input: {} },
      ],
    };
    const late = answer('b', '1h');
    type Step = { system: RequestBody['system']; messages: MessageParam[]; latest?: ContentBlockParam[] };
    const cases: Step[][] = [
      // The answer to a kept call replaced: the unchanged call before it is unanswered now.
      [
        { system: sys('5m'), messages: [task, a, answer('a')] },
        { system: sys('5m'), messages: [task, a, text('instead')] },
      ],
      // A new call reusing an id of a kept one.
      [
        { system: sys('5m'), messages: [task, a, answer('a')] },
        { system: sys('5m'), messages: [task, a, answer('a'), call('a'), answer('a')] },
      ],
      // The system's breakpoint turns 5m: a kept 1h breakpoint now comes after a 5m one.
      [
        { system: sys('1h'), messages: [task, b, late] },
        { system: sys('5m'), messages: [task, b, late, c, answer('c')] },
      ],
      // A breakpoint on blank system text.
      [
        { system: sys('5m'), messages: [task] },
        { system: sys('5m', ' '), messages: [task] },
      ],
      // A fifth breakpoint.
      [
        { system: sys('5m'), messages: [task, c, answer('c', '5m')] },
        {
          system: sys('5m'),
          messages: [task, c, answer('c', '5m'), d, answer('d', '5m'), e, answer('e', '5m'), a, answer('a', '5m')],
        },
      ],
      // A result after text in a new message.
      [
        { system: sys('5m'), messages: [task] },
        {
          system: sys('5m'),
          messages: [
            task,
            d,
            {
              role: 'user',
              content: [
                { type: 'text', text: 'first' },
                { type: 'tool_result', tool_use_id: 'd', content: 'ok' },
              ],
            },
          ],
        },
      ],
      // The latest response's thinking: fewer blocks sent than it had.
      [
        { system: sys('5m'), messages: [task] },
        {
          system: sys('5m'),
          messages: [task, thinkingCall, answer('g')],
          latest: [
            { type: 'thinking', thinking: 't1', signature: 's1' },
            { type: 'thinking', thinking: 't2', signature: 's2' },
          ],
        },
      ],
      // The former last message (a user message) followed by another user message.
      [
        { system: sys('5m'), messages: [task] },
        { system: sys('5m'), messages: [task, text('again')] },
      ],
    ];
    for (const seq of cases) {
      const stream = new RequestStreamValidator();
      for (const step of seq) {
        const body: RequestBody = {
          model: 'claude-sonnet-4-5',
          max_tokens: 100,
          system: step.system,
          messages: step.messages,
        };
        const opts = { latestAssistantThinking: step.latest };
        expect(stream.validate(body, opts)).toEqual(validateRequest(body, opts));
      }
    }
  });

  it('takes the shortcut on a growing clean loop (and still agrees)', () => {
    const stream = new RequestStreamValidator();
    let messages: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'task' }] }];
    let clean = 0;
    for (let i = 0; i < 30; i++) {
      messages = [
        ...messages,
        { role: 'assistant', content: [{ type: 'tool_use', id: `x${i}`, name: 'read', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: `x${i}`, content: 'ok' }] },
      ];
      const body: RequestBody = { model: 'claude-sonnet-4-5', max_tokens: 100, messages };
      const got = stream.validate(body);
      expect(got).toEqual(validateRequest(body));
      if (got.length === 0) clean++;
    }
    expect(clean).toBe(30);
    expect(stream.shortcuts).toBe(29);
  });
});
