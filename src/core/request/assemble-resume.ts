/**
 * Assembly that grows with what is new: a session's requests mostly send the last request's
 * messages again and add a few, so the assembly of a request resumes from a checkpoint of the
 * last one instead of walking the whole history.
 *
 * A checkpoint sits at an assistant turn that follows a user turn, {@link RESUME_MARGIN}
 * rendered messages or more before the end: every pass leaves the turns before it as they
 * are whatever comes after (the pairing pass looks one turn ahead, compaction merges into the
 * turn before, the thinking pass treats the latest assistant turn apart, and the trailing
 * one is dropped: all of these are the checkpoint turn or after it). It keeps the messages
 * before that turn, each pass's repairs on them, the tool_use ids and summaries seen, and the
 * questions asked of the log (`pairOf`) with their answers. The next request resumes from it
 * when its rendered messages before the turn are the same objects (a rendered message is kept
 * per revision: an overlay on an older message makes a new one) and the log still answers
 * every question the same way; the run from there must start with that assistant turn after
 * compaction. Anything else runs the passes from the beginning, so the answer is always the
 * full assembly's, repair for repair and in the same order. Messages holding a block the
 * assembler makes anew on every call (turns.ts isFresh) are made anew here too.
 */
import type { Repair } from '../api/wire';
import type { ContentBlockParam, MessageParam } from '../session/types';
import {
  output,
  PASSES,
  Run,
  type AssembleOptions,
  type Assembled,
  type AssembledMessage,
  type PairQuery,
} from './assemble';
import type { RenderedMessage } from './render';
import { freshCopy, isFresh, type Turn } from './turns';

/**
 * Rendered messages at least this far from the end are behind the checkpoint: what later calls mostly change (the
 * last response's view, the round a strategy trims next) is after it. On entire-dev (`none` + `default`) a margin of
 * 4 resumed 87% of the assemblies, 8 80%, 24 54%: the others had no checkpoint yet or one an overlay had passed.
 */
export const RESUME_MARGIN = 4;

interface Checkpoint {
  readonly rendered: readonly RenderedMessage[];
  /** Index in `rendered` of the checkpoint's assistant turn. */
  readonly from: number;
  /** The messages before it. */
  readonly messages: AssembledMessage[];
  /** Indexes of those made anew on every call. */
  readonly fresh: number[];
  /** Per pass: the repairs made on the messages before it. */
  readonly repairs: Repair[][];
  readonly queries: PairQuery[];
  readonly uses: Set<string>;
  readonly summaries: Set<string>;
}

/** One session's assembler: {@link assemble}, resumed from the last request's checkpoint when it can be. */
export class ResumableAssembly {
  private checkpoint?: Checkpoint;
  /** Assemblies resumed from a checkpoint, and those run from the beginning (tests, profiles). */
  resumed = 0;
  full = 0;

  /** `margin`: how far from the end a checkpoint sits at the least, in rendered messages (tests use a short one). */
  constructor(private readonly margin = RESUME_MARGIN) {}

  assemble(rendered: readonly RenderedMessage[], opts: AssembleOptions): Assembled {
    const cp = this.checkpoint;
    if (cp && usable(cp, rendered, opts)) {
      const r = this.run(rendered, opts, cp);
      if (r) {
        this.resumed++;
        return r;
      }
    }
    this.checkpoint = undefined;
    this.full++;
    return this.run(rendered, opts, undefined)!;
  }

  private run(rendered: readonly RenderedMessage[], opts: AssembleOptions, cp?: Checkpoint): Assembled | undefined {
    const run = new Run(opts, cp && { from: cp.from, uses: cp.uses, summaries: cp.summaries });
    const done = run.passes(rendered);
    if (!done) return undefined;
    const outs = done.turns.map(output);
    const before = cp ? renew(cp) : [];
    const messages = before.concat(outs.map((o) => o.message));
    const repairs: Repair[] = [];
    for (let p = 0; p < PASSES; p++) {
      if (cp) for (const r of cp.repairs[p]) repairs.push(r);
      for (let k = run.passStart[p]; k < run.passStart[p + 1]; k++) repairs.push(run.repairs[k]);
    }
    const next = advance(rendered, run, done.turns, outs, cp, this.margin);
    if (next) this.checkpoint = next;
    return { messages, repairs, latestThinking: done.latestThinking };
  }
}

/** The checkpoint holds for these rendered messages: the same objects before it, the same answers from the log. */
function usable(cp: Checkpoint, rendered: readonly RenderedMessage[], opts: AssembleOptions): boolean {
  if (rendered.length <= cp.from) return false;
  for (let i = 0; i < cp.from; i++) if (rendered[i] !== cp.rendered[i]) return false;
  for (const q of cp.queries) if (opts.pairOf?.(q.id, q.want) !== q.answer) return false;
  return true;
}

/** The checkpoint's messages for this call: those holding a block made anew on every call are made anew. */
function renew(cp: Checkpoint): AssembledMessage[] {
  for (const i of cp.fresh) {
    const m = cp.messages[i];
    const content = m.param.content as ContentBlockParam[];
    cp.messages[i] = {
      param: { role: m.param.role, content: content.map((p) => (isFresh(p) ? freshCopy(p) : p)) } as MessageParam,
      ids: m.ids,
    };
  }
  return cp.messages;
}

/**
 * The checkpoint after this run: at the last assistant turn that follows a user turn and starts
 * `margin` or more rendered messages before the end (else the one the run started from).
 */
function advance(
  rendered: readonly RenderedMessage[],
  run: Run,
  turns: readonly Turn[],
  outs: readonly { message: AssembledMessage; fresh: boolean }[],
  cp: Checkpoint | undefined,
  margin: number,
): Checkpoint | undefined {
  let i = turns.length - 1;
  for (; i >= 0; i--) {
    const t = turns[i];
    if (t.role !== 'assistant' || t.start < 0 || t.start > rendered.length - margin) continue;
    if (i === 0 ? cp !== undefined : turns[i - 1].role === 'user') break;
  }
  if (i < 0) return cp;
  const marks = turns[i].marks!;
  const next: Checkpoint = cp
    ? { ...cp, rendered, from: turns[i].start }
    : {
        rendered,
        from: turns[i].start,
        messages: [],
        fresh: [],
        repairs: Array.from({ length: PASSES }, () => []),
        queries: [],
        uses: new Set(),
        summaries: new Set(),
      };
  for (let k = 0; k < i; k++) {
    if (outs[k].fresh) next.fresh.push(next.messages.length);
    next.messages.push(outs[k].message);
  }
  for (let p = 0; p < PASSES; p++)
    for (let k = run.passStart[p]; k < marks.repairs[p]; k++) next.repairs[p].push(run.repairs[k]);
  for (let k = 0; k < marks.queries[0]; k++) next.queries.push(run.queries[k]);
  for (let k = run.queryStart[1]; k < marks.queries[1]; k++) next.queries.push(run.queries[k]);
  let u = 0;
  for (const id of run.seen.own) {
    if (u++ >= (marks.uses ?? 0)) break;
    next.uses.add(id);
  }
  for (let k = 0; k < marks.summaries; k++) next.summaries.add(run.summaries[k]);
  return next;
}
