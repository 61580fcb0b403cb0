import { blockText, Session, type ContentBlockParam } from '../../../src/core/session';
import type { TokenAccountant, TokenCount } from '../../../src/core/tokens/types';
import { DecisionLog, MessageIndex, type Pipeline, type CacheState } from '../../../src/core/trimming';

/** A transparent accountant for tests: one token per 4 characters. */
export const charsAccountant: TokenAccountant = {
  block: (p: ContentBlockParam): TokenCount => ({
    tokens: Math.ceil(blockText(p).length / 4) + 3,
    quality: 'estimated',
  }),
  text: (t: string): TokenCount => ({ tokens: Math.ceil(t.length / 4), quality: 'estimated' }),
  raw: (t: string) => Math.ceil(t.length / 4),
};

let n = 0;
/** Append one tool round: assistant tool_use(s) + user tool_result(s). */
export function round(
  s: Session,
  tools: { name: string; input: Record<string, unknown>; result: string; isError?: boolean }[],
): string[] {
  const ids = tools.map(() => `toolu_${(n++).toString().padStart(6, '0')}`);
  s.append(
    'assistant',
    tools.map((t, i) => ({ type: 'tool_use', id: ids[i], name: t.name, input: t.input })),
  );
  s.append(
    'user',
    tools.map((t, i) => ({
      type: 'tool_result',
      tool_use_id: ids[i],
      content: t.result,
      ...(t.isError !== undefined ? { is_error: t.isError } : {}),
    })),
  );
  return ids;
}

export class Harness {
  readonly index: MessageIndex;
  readonly decisions = new DecisionLog();
  call = 0;
  cache: CacheState = { cachedUpTo: 0 };
  now = 0;
  /** TTL of the breakpoints the requests would carry. */
  ttl: '5m' | '1h' = '5m';
  constructor(
    readonly session: Session,
    readonly pipeline: Pipeline,
    readonly contextWindow = 200_000,
  ) {
    this.index = new MessageIndex(session, charsAccountant);
  }
  /** Run the pipeline for the next call; `gapMs` since the previous call (default: within the cache TTL). */
  run(gapMs = 1000) {
    this.now += gapMs;
    const r = this.pipeline.run({
      session: this.session,
      index: this.index,
      tokens: charsAccountant,
      decisions: this.decisions,
      callIndex: this.call++,
      epochStart: 0,
      upTo: this.session.messages.length,
      contextWindow: this.contextWindow,
      now: this.now,
      cache: { ...this.cache, ttl: this.ttl },
    });
    this.cache = { cachedUpTo: this.session.messages.length, lastCallAt: this.now };
    return r;
  }
  states(): string[] {
    return this.session.messages.flatMap((_, p) => this.session.resolveMessage(p).blocks.map((b) => b.state));
  }
}
