/**
 * Request builder: a Session view → the exact Messages API body.
 *
 * Messages [from ?? epochStart, upTo ?? log length) are rendered one by one
 * (cached by message id and `session.revision(id)`, so a turn that adds one
 * message renders one message), assembled and repaired (assemble.ts, linear),
 * optionally given cache breakpoints (cache/planner.ts), then validated. A body
 * that still breaks a rule is never returned: RequestRefusedError is thrown.
 *
 * The body shares block objects with the log (verbatim blocks are the log's own
 * param objects, so sent bytes equal recorded bytes). Treat it as immutable.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { planBreakpoints } from '../cache/planner';
import { blockText } from '../session/log';
import type { Session } from '../session/session';
import { lastBelow } from '../session/sorted';
import type { ContentBlockParam, MessageParam, TextBlockParam } from '../session/types';
import type { TokenAccountant } from '../tokens/types';
import { ResumableAssembly } from './assemble-resume';
import { cacheControlOf, isBlank, withoutCacheControl } from '../api/blocks';
import { renderMessage, type RenderedMessage } from './render';
import type { Breakpoint, CacheTtl, Repair, RequestBody, Violation } from '../api/wire';
import { userTextRequired } from './user-text-carried';
import { thinkingEnabled } from './validate';
import { RequestStreamValidator } from './validate-stream';
import { firstChangedMessage } from './first-changed';

export { firstChangedMessage } from './first-changed';

/** Top-level params passed through untouched (thinking, tool_choice, metadata, temperature…). */
export type ExtraParams = Omit<
  Partial<RequestBody>,
  'model' | 'messages' | 'max_tokens' | 'stream' | 'system' | 'tools'
>;

export interface BuildOptions {
  readonly model: string;
  readonly maxTokens: number;
  /** End of the window (exclusive, log position); default: the whole log. */
  readonly upTo?: number;
  /** Start of the window (log position); default: the epoch start (last compact boundary before upTo). */
  readonly from?: number;
  /** Default: session.system. */
  readonly system?: string | TextBlockParam[];
  /** Default: session.tools. */
  readonly tools?: readonly Anthropic.ToolUnion[];
  /**
   * Tokens of the client's tools + system prompt in front of the messages, when the session does not
   * hold them (a replayed transcript: inferred from the recorded usage). The planner counts them
   * instead of the system and tools it is given; the minimum cacheable prefix is on the whole prefix.
   */
  readonly headTokens?: number;
  /** When set, cache breakpoints are planned with this TTL. */
  readonly cacheTtl?: CacheTtl;
  /** Token counts for the planner; default a rough chars/4 estimate. */
  readonly accountant?: TokenAccountant;
  /** Breakpoints of recent calls whose writes may still be alive (read anchors, see planBreakpoints). */
  readonly previousBreakpoints?: readonly Breakpoint[];
  /**
   * The previous request's messages as built (before breakpoints): the first message that differs
   * from them is where this request's cached prefix can end at the latest (no anchor past it).
   */
  readonly previousMessages?: readonly MessageParam[];
  /** Keep the messages from this log position on out of the cache write (planBreakpoints `holdBackFrom`). */
  readonly holdBackFrom?: number;
  readonly extra?: ExtraParams;
}

/** `messages.N.content.M` ↔ log block id (synthetic blocks have synthetic ids, see render.ts). */
export class BlockMap {
  private reverse?: Map<string, { messageIndex: number; blockIndex: number }>;
  constructor(readonly rows: readonly (readonly string[])[]) {}

  idAt(messageIndex: number, blockIndex: number): string | undefined {
    return this.rows[messageIndex]?.[blockIndex];
  }

  /** Where a log block sits in the request, if it is sent. */
  positionOf(blockId: string): { messageIndex: number; blockIndex: number } | undefined {
    if (!this.reverse) {
      this.reverse = new Map();
      this.rows.forEach((row, messageIndex) =>
        row.forEach((id, blockIndex) => this.reverse!.set(id, { messageIndex, blockIndex })),
      );
    }
    return this.reverse.get(blockId);
  }
}

export interface BuildResult {
  readonly body: RequestBody;
  readonly repairs: readonly Repair[];
  readonly blockMap: BlockMap;
  /** Planned breakpoints ([] unless cacheTtl was given). */
  readonly breakpoints: readonly Breakpoint[];
  /** The log window used. */
  readonly from: number;
  readonly upTo: number;
  /** The messages before breakpoints were planned (pass as `previousMessages` next call). */
  readonly messages: readonly MessageParam[];
  /** Index of the first message that differs from `previousMessages` (their length when none does). */
  readonly firstChanged?: number;
  /** Log position from which messages were kept out of the cache write (undefined: none were). */
  readonly heldFrom?: number;
}

/** The first request message that starts at or after a log position, with the log position it starts at. */
function requestIndexFrom(
  session: Session,
  map: BlockMap,
  count: number,
  logPos: number,
): { index: number; position: number } | undefined {
  let found: { index: number; position: number } | undefined;
  for (let m = count - 1; m >= 0; m--) {
    const id = map.idAt(m, 0);
    const msg = id ? session.messageOf(id) : undefined;
    const p = msg ? session.position(msg.id) : undefined;
    if (p === undefined || p < logPos) break;
    found = { index: m, position: p };
  }
  return found;
}

/** Violations quoted in the error message (all of them are on `violations`). */
const SHOWN_VIOLATIONS = 5;

/** Thrown instead of returning a body the API would reject. */
export class RequestRefusedError extends Error {
  constructor(
    readonly violations: readonly Violation[],
    readonly repairs: readonly Repair[],
  ) {
    const shown = violations
      .slice(0, SHOWN_VIOLATIONS)
      .map((x) => x.message)
      .join(' | ');
    const more = violations.length > SHOWN_VIOLATIONS ? ` | … ${violations.length - SHOWN_VIOLATIONS} more` : '';
    super(`request refused: ${violations.length} API rule violation(s) left after repair: ${shown}${more}`);
    this.name = 'RequestRefusedError';
  }
}

/** Rough tokens per character when no accountant is given (English prose and code average ~4). */
const CHARS_PER_TOKEN = 4;
/** Reference: tool definitions add hidden system tokens (~500 on Sonnet 4.6). */
const TOOL_SYSTEM_TOKENS = 500;

interface SessionCache {
  readonly rendered: Map<string, RenderedMessage>;
  /**
   * The session's requests are validated as a stream: a clean request that only adds to the last is checked for what
   * changed.
   */
  readonly validator: RequestStreamValidator;
  /** The session's requests are assembled as a stream too: from a checkpoint of the last one when they can be. */
  readonly assembly: ResumableAssembly;
  /** Positions of compact-boundary messages, ascending, for positions < scanned. */
  readonly boundaries: number[];
  scanned: number;
}

export class RequestBuilder {
  private readonly caches = new WeakMap<Session, SessionCache>();
  private readonly memos = new WeakMap<object, TokenMemo>();

  private cacheOf(session: Session): SessionCache {
    let c = this.caches.get(session);
    if (!c)
      this.caches.set(
        session,
        (c = {
          rendered: new Map(),
          validator: new RequestStreamValidator(),
          assembly: new ResumableAssembly(),
          boundaries: [],
          scanned: 0,
        }),
      );
    return c;
  }

  /** The rendered message at a log position (re-rendered only when its revision changed). */
  rendered(session: Session, pos: number, cache = this.cacheOf(session).rendered): RenderedMessage {
    const m = session.messages[pos];
    const hit = cache.get(m.id);
    if (hit && hit.revision === session.revision(m.id)) return hit;
    const r = renderMessage(session.resolveMessage(pos));
    cache.set(m.id, r);
    return r;
  }

  /** Start of the recorded history before `upTo`: the last compact boundary, or 0. */
  epochStart(session: Session, upTo: number): number {
    const c = this.cacheOf(session);
    for (; c.scanned < session.messages.length; c.scanned++) {
      if (session.messages[c.scanned].meta.compactBoundary) c.boundaries.push(c.scanned);
    }
    return lastBelow(c.boundaries, upTo, 0);
  }

  build(session: Session, opts: BuildOptions): BuildResult {
    const n = session.messages.length;
    const upTo = Math.max(0, Math.min(opts.upTo ?? n, n));
    const from = Math.max(0, Math.min(opts.from ?? this.epochStart(session, upTo), upTo));
    const rendered: RenderedMessage[] = [];
    const sessionCache = this.cacheOf(session);
    const cache = sessionCache.rendered;
    for (let p = from; p < upTo; p++) {
      const r = this.rendered(session, p, cache);
      rendered.push(r);
      // A summary stands for its whole range: jump over the hidden messages (per-turn work
      // then grows with what is visible, not with the history behind summaries).
      if (r.summary && r.summary.fromMessageId === r.messageId)
        p = Math.max(p, Math.min(upTo - 1, session.position(r.summary.toMessageId) ?? p));
    }
    const repairs: Repair[] = [];
    for (const r of rendered) if (r.repairs.length) repairs.push(...r.repairs);

    const assembled = sessionCache.assembly.assemble(rendered, {
      pairOf: (id, want) => (want === 'use' ? session.toolUseBlockId(id) : session.toolResultBlockId(id)),
    });
    repairs.push(...assembled.repairs);
    const system = cleanSystem(opts.system ?? session.system, repairs);
    const tools = cleanTools(opts.tools ?? session.tools);
    let body: RequestBody = {
      ...opts.extra,
      model: opts.model,
      max_tokens: opts.maxTokens,
      ...(system !== undefined ? { system } : {}),
      ...(tools !== undefined ? { tools } : {}),
      messages: assembled.messages.map((m) => m.param),
    };
    const blockMap = new BlockMap(assembled.messages.map((m) => m.ids));

    let breakpoints: Breakpoint[] = [];
    let heldFrom: number | undefined;
    const holdAt =
      opts.holdBackFrom === undefined
        ? undefined
        : requestIndexFrom(session, blockMap, body.messages.length, opts.holdBackFrom);
    const messages = body.messages;
    const firstChanged = opts.previousMessages ? firstChangedMessage(opts.previousMessages, messages) : undefined;
    if (opts.cacheTtl) {
      const memo = this.memoFor(opts.accountant);
      const plan = planBreakpoints(body, {
        model: opts.model,
        ttl: opts.cacheTtl,
        previous: opts.previousBreakpoints,
        firstChanged,
        holdBackFrom: holdAt?.index,
        blockIdAt: (m, b) => blockMap.idAt(m, b),
        tokensOf: (m, b) => {
          const c = body.messages[m].content;
          return memo.block(typeof c === 'string' ? { type: 'text', text: c } : c[b]);
        },
        tokensKey: memo,
        toolsTokens: opts.headTokens !== undefined || !tools ? 0 : toolsTokens(tools, memo),
        systemTokens: opts.headTokens ?? systemTokens(system, memo),
      });
      body = plan.body;
      breakpoints = plan.breakpoints;
      if (plan.heldBack) heldFrom = holdAt?.position;
    }

    // A response with thinking was made with thinking on: the request continuing it is sent so too.
    const thinking = thinkingEnabled(body) || assembled.latestThinking.length > 0;
    const violations = sessionCache.validator.validate(body, {
      model: opts.model,
      latestAssistantThinking: assembled.latestThinking,
      thinking,
      userText: userTextRequired(session, from, upTo),
    });
    if (violations.length > 0) throw new RequestRefusedError(violations, repairs);
    return { body, repairs, blockMap, breakpoints, from, upTo, messages, firstChanged, heldFrom };
  }

  private memoFor(accountant: TokenAccountant | undefined): TokenMemo {
    const key = accountant ?? ESTIMATE;
    let m = this.memos.get(key);
    if (!m) this.memos.set(key, (m = new TokenMemo(accountant)));
    return m;
  }
}

/** Rough stand-in when no accountant is given. */
const ESTIMATE = {};

/** Token counts memoized per object (blocks, tools and system arrays are stable objects across builds). */
class TokenMemo {
  private readonly byObject = new WeakMap<object, number>();
  private lastText?: { text: string; tokens: number };
  constructor(private readonly accountant?: TokenAccountant) {}

  private count(text: string): number {
    return this.accountant ? this.accountant.text(text).tokens : Math.ceil(text.length / CHARS_PER_TOKEN);
  }

  block(b: ContentBlockParam): number {
    let t = this.byObject.get(b);
    if (t === undefined)
      this.byObject.set(b, (t = this.accountant ? this.accountant.block(b).tokens : this.count(blockText(b))));
    return t;
  }

  keyed(key: object, text: () => string): number {
    let t = this.byObject.get(key);
    if (t === undefined) this.byObject.set(key, (t = this.count(text())));
    return t;
  }

  text(text: string): number {
    if (this.lastText?.text !== text) this.lastText = { text, tokens: this.count(text) };
    return this.lastText.tokens;
  }
}

function toolsTokens(tools: Anthropic.ToolUnion[], memo: TokenMemo): number {
  return memo.keyed(tools, () => JSON.stringify(tools)) + TOOL_SYSTEM_TOKENS;
}

function systemTokens(system: string | TextBlockParam[] | undefined, memo: TokenMemo): number {
  if (system === undefined) return 0;
  return typeof system === 'string' ? memo.text(system) : memo.keyed(system, () => systemText(system));
}

function systemText(system: string | TextBlockParam[]): string {
  return typeof system === 'string' ? system : system.map((b) => b.text).join('\n');
}

/** System without blank text blocks or recorded cache_control; undefined when nothing is left. */
function cleanSystem(
  system: string | TextBlockParam[] | undefined,
  repairs: Repair[],
): string | TextBlockParam[] | undefined {
  if (system === undefined) return undefined;
  if (typeof system === 'string') return isBlank(system) ? undefined : system;
  if (!system.some((b) => isBlank(b.text) || cacheControlOf(b))) return system.length > 0 ? system : undefined;
  const kept = system.filter((b) => !isBlank(b.text)).map((b) => withoutCacheControl(b));
  if (kept.length !== system.length)
    repairs.push({ rule: 'empty-text', description: 'dropped empty system text blocks', blockIds: [] });
  return kept.length > 0 ? kept : undefined;
}

/** Tools without recorded cache_control (breakpoints are the planner's); undefined when empty. */
function cleanTools(tools: readonly Anthropic.ToolUnion[] | undefined): Anthropic.ToolUnion[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  return tools.some((t) => cacheControlOf(t))
    ? tools.map((t) => withoutCacheControl(t))
    : (tools as Anthropic.ToolUnion[]);
}
