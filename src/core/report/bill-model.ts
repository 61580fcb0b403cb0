/**
 * The bill model: what a recorded session's requests cost with the cache
 * behaving as the API documents it, on sizes inferred from the recorded usage.
 *
 * What the API did, and this model follows (docs/anthropic-api.md):
 * - The request is tools+system, then the messages. Claude Code does not
 *   record its tools and system prompt; they are two inferred blocks: the
 *   `shared` prefix (tools and the stable system blocks, identical in every
 *   session of a client version, so other sessions keep it warm: read from
 *   cache even after 40-minute gaps in the m-claude data) and the `session`
 *   part (the project's system block and the reminders injected into the first
 *   message). Claude Code puts a breakpoint after each, and one on the last
 *   block of the last message.
 * - Thinking of earlier turns: models that do not keep it (Sonnet 4.5) drop
 *   every thinking block before the latest human turn from the prompt. The
 *   prompt then differs from the cached one from the first dropped block on,
 *   and the read falls back to what the 20-block lookback still finds (often
 *   just the system prefix). This is the main thing a TTL-only model misses.
 * - TTL from the recorded timestamps; 1-hour breakpoints where the recorded
 *   usage shows 1-hour writes.
 * - A transcript that starts mid-conversation sends an earlier conversation
 *   after the system prompt: one more block, re-sized where the client changed
 *   it (earlier-conversation.ts), warm at the first call when that call read it.
 * - The shared prefix is warm from the client's other sessions only where the
 *   recording read it (fit.ts othersKeptWarm).
 * The cache itself is the shared simulator (src/core/cache/simulator.ts).
 */
import { inputSideCost } from '../cache/cost';
import { thinkingDroppedIn } from '../api/cache-rules';
import { CacheSimulator, type SimBlock, type SimMessage } from '../cache/simulator';
import { keepsPriorThinking, minCacheableTokens, modelPrice, type ModelPrice } from '../models';
import { foldThinking, thinkingDropAt, withoutThinking } from './bill-blocks';
import type {
  BillBlock,
  BillMessage,
  BillRequest,
  BillStep,
  InferredPrefix,
  SpanParts,
  SpanSink,
  TurnEndWrite,
} from './bill-types';

export type { BillBlock, BillMessage, BillRequest, BillStep, InferredPrefix, SpanParts, SpanSink } from './bill-types';
export { blockEndingNear, effectiveMessages, foldThinking, messageTokens } from './bill-blocks';

/**
 * A message's blocks folded (thinking carried by the next block), their simulator blocks, and the simulator message.
 */
interface SimParts extends SpanParts {
  readonly folded: { block: BillBlock; tokens: number }[];
  readonly sim: SimBlock[];
  readonly msg: SimMessage;
}

/**
 * Replays requests through the cache simulator with the client's breakpoint
 * placement. One instance per session and strategy (the cache is its state).
 */
export class BillModel {
  private readonly sim: CacheSimulator;
  private readonly sizes = new WeakMap<object, number>();
  private readonly simBlocks = new Map<string, SimBlock>();
  /** The system blocks of the last step, by part. */
  private readonly lastSystem: Partial<
    Record<'shared' | 'session', { version: string; restarts: number; ttl: '5m' | '1h'; block: SimBlock }>
  > = {};
  /** The simulator block of a content id (with its epoch) at a size. */
  private readonly contentBlocks = new Map<string, Map<number, SimBlock>>();
  private readonly shared: SimBlock;
  private readonly sessionBlock: SimBlock;
  private readonly keepsThinking: boolean;
  private readonly price: ModelPrice;
  /**
   * The last request's messages and their parts ({@link partsOf}), and the messages sent to the
   * simulator: `sims` with the first message of an epoch and the breakpoint's message replaced
   * (at the indices in `patched`).
   */
  private readonly work = {
    input: [] as readonly BillMessage[],
    lastHuman: -2,
    effs: [] as BillMessage[],
    parts: [] as SimParts[],
    sims: [] as SimMessage[],
    sent: [] as SimMessage[],
    patched: [] as number[],
    /** Client restarts among the messages up to each index. */
    restarts: [] as number[],
  };
  /** Per message object: the message without thinking (models that drop it). */
  private readonly stripped = new WeakMap<BillMessage, BillMessage>();
  /** Per message object: its blocks folded (thinking carried by the next block) and their simulator blocks. */
  private readonly simOf = new WeakMap<BillMessage, SimParts>();
  /** Per message object and epoch: the message as the first of that epoch. */
  private readonly epochMsgs = new WeakMap<BillMessage, Map<number, SimMessage>>();
  /** Per simulator block: its copies carrying a breakpoint, by TTL. */
  private readonly marked = new WeakMap<SimBlock, Map<string, SimBlock>>();
  /** The earlier conversation's block of the last step (see {@link earlierBlock}). */
  private lastEarlier?: { key: string; block: SimBlock };
  /** Whether a step ran (the prefix warm at the start is written before the first). */
  private started = false;

  constructor(
    readonly model: string,
    readonly prefix: InferredPrefix,
  ) {
    this.shared = { type: 'text', text: 'prefix:shared', cache_control: { type: 'ephemeral' } } as SimBlock;
    this.sessionBlock = { type: 'text', text: 'prefix:session', cache_control: { type: 'ephemeral' } } as SimBlock;
    this.sizes.set(this.shared, prefix.shared);
    this.sizes.set(this.sessionBlock, prefix.session);
    // The minimum is fixed per model: looked up once, not on every step.
    // Sizes are fixed per simulator block object, so unchanged messages need not be walked again.
    this.sim = new CacheSimulator({ minTokens: minCacheableTokens(model), reuseUnchangedMessages: true });
    this.keepsThinking = keepsPriorThinking(model);
    this.price = modelPrice(model);
  }

  /**
   * The simulator parts of a request's messages, in arrays kept from step to step. The previous
   * request's are kept for the messages it shares (the same objects, in the same places, with
   * the same last human turn), so a call looks up only what is new: a tool loop's per-call work
   * does not grow with the history. Returns the index from which the parts are new.
   */
  private partsOf(input: readonly BillMessage[]): number {
    const lastHuman = thinkingDropAt(input, !this.keepsThinking);
    const w = this.work;
    let k = 0;
    if (w.lastHuman === lastHuman) {
      const n = Math.min(w.input.length, input.length);
      while (k < n && w.input[k] === input[k]) k++;
    }
    // Overwritten from k on (assignment, not truncate-and-push: the arrays keep their capacity).
    for (let i = k; i < input.length; i++) {
      const e = thinkingDroppedIn(input[i].role, i, lastHuman) ? this.withoutThinking(input[i]) : input[i];
      const p = this.simMessage(e);
      w.effs[i] = e;
      w.parts[i] = p;
      w.sims[i] = p.msg;
      w.restarts[i] = (i > 0 ? w.restarts[i - 1] : 0) + (input[i].clientRestart ? 1 : 0);
    }
    if (w.effs.length !== input.length)
      w.effs.length = w.parts.length = w.sims.length = w.restarts.length = input.length;
    w.input = input;
    w.lastHuman = lastHuman;
    return k;
  }

  /** An assistant message without its thinking (models that drop earlier turns' thinking), kept per message object. */
  private withoutThinking(m: BillMessage): BillMessage {
    let s = this.stripped.get(m);
    if (!s) this.stripped.set(m, (s = withoutThinking(m)));
    return s;
  }

  private simMessage(m: BillMessage): SimParts {
    let r = this.simOf.get(m);
    if (!r) {
      const folded = foldThinking(m.blocks);
      const sim = folded.map((f) => this.simBlock(f.block, f.tokens));
      r = { folded, sim, msg: { role: m.role, content: sim } };
      this.simOf.set(m, r);
    }
    return r;
  }

  /**
   * The first message of an epoch: its first block other bytes (one object per message and epoch, so the simulator can
   * skip it unchanged).
   */
  private epochMessage(m: BillMessage, parts: SimParts, epoch: number): SimMessage {
    let byEpoch = this.epochMsgs.get(m);
    if (!byEpoch) this.epochMsgs.set(m, (byEpoch = new Map()));
    let msg = byEpoch.get(epoch);
    if (!msg) {
      msg = {
        role: m.role,
        content: [this.simBlock(parts.folded[0].block, parts.folded[0].tokens, epoch), ...parts.sim.slice(1)],
      };
      byEpoch.set(epoch, msg);
    }
    return msg;
  }

  private tokensOf = (b: SimBlock): number => this.sizes.get(b) ?? 0;

  /** A block carrying the breakpoint (same content, so the same cache identity); one copy per block and TTL. */
  private withCc(b: SimBlock, tokens: number, cc: { type: string; ttl?: string }): SimBlock {
    let byTtl = this.marked.get(b);
    if (!byTtl) this.marked.set(b, (byTtl = new Map()));
    const key = cc.ttl ?? '5m';
    let marked = byTtl.get(key);
    if (!marked) {
      // The bill's simulator blocks are text blocks: written out, not spread (V8's slow path).
      marked = { type: 'text', text: (b as { text: string }).text, cache_control: cc } as SimBlock;
      this.sim.shareIdentity(marked, b);
      this.sizes.set(marked, tokens);
      byTtl.set(key, marked);
    }
    return marked;
  }

  /** A system block (`shared` or `session`) of a client version, after n restarts, with its breakpoint's TTL. */
  private systemBlock(part: 'shared' | 'session', version: string, restarts: number, ttl: '5m' | '1h'): SimBlock {
    if (!version && ttl === '5m') {
      if (part === 'shared') return this.shared;
      if (!restarts) return this.sessionBlock;
    }
    // The same as the last call's (almost always): no key to build.
    const last = this.lastSystem[part];
    if (last && last.version === version && last.restarts === restarts && last.ttl === ttl) return last.block;
    // The shared part does not change on a restart (other sessions keep it warm); both change with the version.
    const key = `prefix:${part}@${version}${part === 'session' && restarts ? `#${restarts}` : ''}|${ttl}`;
    let s = this.simBlocks.get(key);
    if (!s) {
      const text = key.slice(0, key.lastIndexOf('|'));
      s = {
        type: 'text',
        text: version || part === 'session' ? text : 'prefix:shared',
        cache_control: ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' },
      } as SimBlock;
      this.simBlocks.set(key, s);
      this.sizes.set(s, part === 'shared' ? this.prefix.shared : this.prefix.session);
    }
    this.lastSystem[part] = { version, restarts, ttl, block: s };
    return s;
  }

  /**
   * The earlier conversation a request sent after the system prompt (no breakpoint of its own: it is the
   * start of the messages), one block per revision and epoch: a client invalidation rewrites it too.
   */
  private earlierBlock(part: { key: string; tokens: number }, epoch: number): SimBlock {
    const key = `earlier:${part.key}${epoch ? `#${epoch}` : ''}`;
    const last = this.lastEarlier;
    if (last?.key === key && this.sizes.get(last.block) === part.tokens) return last.block;
    const block = { type: 'text', text: key } as SimBlock;
    this.sizes.set(block, part.tokens);
    this.lastEarlier = { key, block };
    return block;
  }

  /**
   * A request the transcript does not hold, made when the previous turn ended (`at`: the end of its response):
   * the messages up to the last response, a breakpoint on its last block. It writes the cache through that
   * response; what it cost is not in the recording, so it is not priced.
   */
  private writeThroughResponse(
    system: readonly SimBlock[],
    messages: readonly SimMessage[],
    write: TurnEndWrite,
    cc: { type: string; ttl?: string },
  ): void {
    const parts = this.work.parts;
    let last = messages.length - 1;
    while (last >= 0 && (messages[last].role !== 'assistant' || !parts[last].sim.length)) last--;
    if (last < 0) return;
    let at: [number, number] = [last, parts[last].sim.length - 1];
    for (let mi = last; mi >= 0; mi--) {
      const bi = parts[mi].folded.findIndex((f) => f.block.id === write.block);
      if (bi >= 0) {
        at = [mi, bi];
        break;
      }
    }
    const [mi, bi] = at;
    const upTo = messages.slice(0, mi + 1);
    const content = [...(upTo[mi].content as readonly SimBlock[])];
    content[bi] = this.withCc(content[bi], parts[mi].folded[bi].tokens, cc);
    upTo[mi] = { role: upTo[mi].role, content };
    this.sim.step({ model: this.model, system, messages: upTo }, this.tokensOf, write.at, write.at);
  }

  /**
   * The simulator's block for a content id at a size (same id, same bytes: same cache identity whatever the size), in
   * an epoch.
   */
  private simBlock(b: BillBlock, tokens: number, epoch = 0): SimBlock {
    const id = epoch ? `${b.id}#${epoch}` : b.id;
    let bySize = this.contentBlocks.get(id);
    if (!bySize) this.contentBlocks.set(id, (bySize = new Map()));
    let s = bySize.get(tokens);
    if (!s) {
      s = { type: 'text', text: id } as SimBlock;
      bySize.set(tokens, s);
      this.sizes.set(s, tokens);
    }
    return s;
  }

  /**
   * Price one request (messages as the client sent them; thinking dropping
   * applied here). `spans` is shown the messages as billed (see {@link SpanSink}).
   */
  step(req: BillRequest, spans?: SpanSink): BillStep {
    const cc = req.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
    const version = req.prefixKey ?? '';
    const sysTtl = req.systemTtl ?? req.ttl;
    const shared = this.systemBlock('shared', version, 0, sysTtl);
    const k = this.partsOf(req.messages);
    // A rewritten session part counts as a restart would (both only grow, so their sum changes whenever either does).
    const restarts =
      (req.messages.length > 0 ? this.work.restarts[req.messages.length - 1] : 0) + (req.sessionEpoch ?? 0);
    const { effs, parts, sims, sent: messages, patched } = this.work;
    // The messages sent: the parts' messages (new from k on, the last step's patches undone), then patched.
    for (const i of patched) if (i < k) messages[i] = sims[i];
    patched.length = 0;
    for (let i = k; i < sims.length; i++) messages[i] = sims[i];
    if (messages.length !== sims.length) messages.length = sims.length;
    if (req.epoch && parts.length && parts[0].sim.length) {
      messages[0] = this.epochMessage(effs[0], parts[0], req.epoch);
      patched.push(0);
    }
    const earlier = req.earlier && req.earlier.tokens > 0 ? this.earlierBlock(req.earlier, req.epoch ?? 0) : undefined;
    const sessionBlock = this.systemBlock('session', version, restarts, sysTtl);
    const system = this.prefix.shared > 0 ? [shared, sessionBlock] : [sessionBlock];
    if (earlier) {
      if (!this.started && this.prefix.warmAtStart) {
        // The first call read its earlier conversation: the calls before the transcript left it in cache.
        const marked = this.withCc(earlier, this.tokensOf(earlier), cc);
        this.sim.stepSystem(this.model, [...system, marked], this.tokensOf, req.now, req.now);
      }
      system.push(earlier);
    }
    this.started = true;
    if (req.turnEndWrite !== undefined) this.writeThroughResponse(system, messages, req.turnEndWrite, cc);
    if (this.prefix.sharedWarm && this.prefix.shared > 0 && req.othersWarm !== false) {
      // Another session of the same client reads the shared prefix just before: it stays warm.
      this.sim.stepSystem(this.model, [shared], this.tokensOf, req.now, req.refresh);
    }
    // The message breakpoint: on the block the client put it on, else on the last block.
    let at: [number, number] | undefined;
    if (req.breakpointAt !== undefined) {
      for (let mi = parts.length - 1; !at && mi >= 0; mi--) {
        const bi = parts[mi].folded.findIndex((f) => f.block.id === req.breakpointAt);
        if (bi >= 0) at = [mi, bi];
      }
    }
    for (let mi = parts.length - 1; !at && mi >= 0; mi--) if (parts[mi].sim.length) at = [mi, parts[mi].sim.length - 1];
    const marks: [number, number][] = at ? [at] : [];
    for (const id of req.anchors ?? []) {
      for (let mi = at?.[0] ?? parts.length - 1; mi >= 0; mi--) {
        const bi = parts[mi].folded.findIndex((f) => f.block.id === id);
        if (bi < 0) continue;
        if (!marks.some(([m, b]) => m === mi && b === bi)) marks.push([mi, bi]);
        break;
      }
    }
    for (const [mi, bi] of marks) {
      const content = [...(messages[mi].content as readonly SimBlock[])];
      content[bi] = this.withCc(content[bi], parts[mi].folded[bi].tokens, cc);
      messages[mi] = { role: messages[mi].role, content };
      if (!patched.includes(mi)) patched.push(mi);
    }
    spans?.(parts, this.prefix.shared + this.prefix.session + (earlier ? this.tokensOf(earlier) : 0));
    const usage = this.sim.step({ model: this.model, system, messages }, this.tokensOf, req.now, req.refresh);
    // Priced by the one pricer (cache/cost.ts): writes split by TTL, reads, uncached input.
    const c = inputSideCost(usage, this.price);
    const writeCost = c.cacheWrite;
    const cost = c.input + c.cacheWrite + c.cacheRead;
    const totalInput = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
    return {
      usage,
      cost,
      writeCost,
      totalInput,
      readTokens: usage.cache_read_input_tokens,
      writtenUpTo: usage.cache_read_input_tokens + usage.cache_creation_input_tokens,
    };
  }
}
