/**
 * What a session's row says about its fit and its strategies, in words: what
 * the bill model followed (model switches, side calls, client upgrades,
 * microcompacts, compactions billed apart), what it could not (rewrites,
 * misses the transcript does not explain), and why a strategy costs more than
 * `none` when it does.
 */
import type { ImportedSession } from '../session/types';
import type { FitResult } from './fit';
import type { RecordedSpend } from '../../protocol/report-types';

export function signedPercent(x: number): string {
  return `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}%`;
}

function usd(n: number): string {
  return `$${n < 0.01 ? n.toFixed(4) : n.toFixed(3)}`;
}

/** "call 11: the client cleared 4 old tool result(s) and 2 attachment(s) itself (microcompact); …". */
function microcompactNote(m: FitResult['microcompacts'][number]): string {
  const what = [
    m.results ? `${m.results} old tool result(s)` : '',
    m.attachments ? `${m.attachments} attachment(s)` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const missing = m.attachments - m.attachmentsFollowed;
  const unheld =
    missing > 0 ? `; ${missing} of the attachments are not in the transcript, their size stays in the history` : '';
  return (
    `call ${m.call}: the client cleared ${what || 'nothing it names'} itself (microcompact); ` +
    `every strategy's history follows${unheld}`
  );
}

/**
 * The part of the prefix after the system prompt the transcript does not hold (earlier-conversation.ts): an
 * earlier conversation when the transcript starts mid-conversation; how much the first call sent, where it changed.
 */
function earlierNotes(fit: FitResult): string[] {
  if (!fit.earlierRewrites.length) return [];
  const first = fit.prefixes.get(fit.earlierRewrites[0].model) ?? fit.prefix;
  const system = Math.round(first.shared + first.session);
  const changes = fit.earlierRewrites.map((r) =>
    r.compaction
      ? `call ${r.call}: a compaction dropped it (${Math.round(r.to)} tokens of context sent again)`
      : `call ${r.call}: the client rewrote it to ${Math.round(r.to)} tokens (cleared or changed ` +
        `where this file does not show; read up to the system prompt)`,
  );
  const what = first.warmAtStart
    ? 'an earlier conversation: the transcript starts mid-conversation (continued from another file or id), ' +
      'and its first call read it from cache, warm from the calls before this file'
    : 'an earlier conversation or context the client injected (reminders, attachments)';
  return [
    `the first call sent ${Math.round(first.earlier ?? 0)} tokens the transcript does not hold after the ` +
      `system prompt (${system} tokens): ${what}; ${changes.join('; ')}; every strategy sends it as recorded`,
  ];
}

/** Calls after a gap that found the shared prefix cold: the client's other sessions had not kept it warm. */
function othersColdNote(fit: FitResult): string[] {
  const cold = fit.othersWarm.flatMap((w, i) => (w === false && fit.billed[i] && !fit.foreign.includes(i) ? [i] : []));
  const shared = Math.round(fit.prefix.shared);
  if (!cold.length || !fit.prefix.sharedWarm) return [];
  return [
    `${cold.length} call(s) read less than the shared prefix (${shared} tokens: tools and stable system blocks; ` +
      `calls ${cold.join(', ')}): the client's other sessions had not kept it warm then, and the model follows ` +
      `the recording there (elsewhere, it is warm as the first call found it)`,
  ];
}

/**
 * Notes on what the fit followed or could not, and the share of the recorded input-side cost that following the
 * unexplained misses moved.
 */
export function fitNotes(
  fit: FitResult,
  imp: ImportedSession,
  recorded: RecordedSpend,
): { notes: string[]; unexplainedShare: number } {
  const notes: string[] = [];
  for (const o of fit.otherModels)
    notes.push(
      `${o.calls} call(s) on ${o.model}: each priced at its own model, on its own cache (a switch starts it cold)`,
    );
  if (fit.foreign.length)
    notes.push(
      `${fit.foreign.length} call(s) on another model sent a request of their own, not this history ` +
        `(calls ${fit.foreign.join(', ')}): priced as recorded in every strategy`,
    );
  for (const v of fit.versionChanges)
    notes.push(
      `call ${v.call}: the client went from ${v.from} to ${v.to}; ` +
        `its system prompt carries the version, so the cached prefix was rewritten`,
    );
  notes.push(...earlierNotes(fit));
  for (const m of fit.microcompacts) notes.push(microcompactNote(m));
  const rewritten = fit.sessionEpochs.flatMap((e, i) => (i > 0 && e > fit.sessionEpochs[i - 1] ? [i] : []));
  if (rewritten.length) {
    notes.push(
      `${rewritten.length} call(s) read only the shared part of the system prompt ` +
        `(${Math.round(fit.prefix.shared)} tokens: tools and stable blocks; calls ${rewritten.join(', ')}): ` +
        `the client rewrote its session part (project instructions, environment) too, and the model follows that`,
    );
  }
  notes.push(...othersColdNote(fit));
  const turnEnds = fit.turnEndWrites.flatMap((w, i) => (w && fit.billed[i] ? [i] : []));
  if (turnEnds.length)
    notes.push(
      `${turnEnds.length} call(s) after a turn ended read past the previous request (calls ${turnEnds.join(', ')}): ` +
        'a request the transcript does not hold wrote the cache through the response, and the model follows that',
    );
  if (fit.lateReads.length) {
    notes.push(
      `${fit.lateReads.length} call(s) read the cache more than its TTL after the previous request, ` +
        `within it after that response ended (calls ${fit.lateReads.join(', ')}): ` +
        `the TTL counts from the end of the response`,
    );
  }
  for (const r of fit.rewrites)
    notes.push(
      `call ${r.call}: the client sent ${r.tokens} tokens less than the transcript holds ` +
        `(resumed or edited history); sizes rescaled from there`,
    );
  const unexplainedShare =
    fit.unanchoredError !== undefined && fit.costError !== undefined ? fit.costError - fit.unanchoredError : 0;
  if (fit.unexplained.length) {
    const share = Math.max(0, unexplainedShare);
    notes.push(
      `${fit.unexplained.length} call(s) read only the system prompt from cache ` +
        `where the documented rules keep the messages cached ` +
        `(calls ${fit.unexplained.join(', ')}: the client changed something the transcript does not hold); ` +
        `the model follows the recording there, for every strategy (the cache restarts after the system prompt); ` +
        `with the documented rules alone the fit would be ${signedPercent(fit.unanchoredError ?? 0)}; ` +
        `these client-caused misses cost about ${usd(share * recorded.inputCost)} ` +
        `(${(100 * share).toFixed(1)}% of the input-side bill)`,
    );
  }
  const compactions = imp.messages.filter((m) => m.meta.compactBoundary).length;
  if (compactions) {
    const apart =
      recorded.iterationCost > 0
        ? `; ${usd(recorded.iterationCost)} billed apart for summarizing (usage.iterations), ` +
          `carried unchanged into every strategy`
        : ': the summarizing call is not in the transcript';
    notes.push(`${compactions} compaction(s)${apart}`);
  }
  return { notes, unexplainedShare };
}

/**
 * A loose fit's first note: how far off, and where (the calls that differ most, each with the rule that decided it).
 */
export function looseNote(error: number, largest = ''): string {
  const where = largest ? `; largest differences: ${largest} (trimline report --explain SESSION shows every call)` : '';
  return (
    `loose fit: simulated none is ${signedPercent(error)} from the recorded bill (beyond ±5%); ` +
    `its savings are left out of the headline${where}`
  );
}

/**
 * Why a strategy costs more than `none`: the cache writes its edits caused
 * against what it saved on the calls after them.
 */
export function dearerBecause(
  strategy: string,
  cost: { inputCost: number; writeCost: number },
  none: { inputCost: number; writeCost: number },
): string | undefined {
  if (cost.inputCost <= none.inputCost) return undefined;
  const extraWrites = cost.writeCost - none.writeCost;
  const rest = cost.inputCost - cost.writeCost - (none.inputCost - none.writeCost);
  if (extraWrites > 0) {
    return (
      `${strategy} costs ${usd(cost.inputCost - none.inputCost)} more than none: ` +
      `its edits rewrote the cache (${usd(extraWrites)} more in cache writes) ` +
      `and the calls after them saved only ${usd(Math.max(0, -rest))} on reads and uncached input: ` +
      `rewrites that never paid back (too few calls left, or gaps past the TTL)`
    );
  }
  const more = usd(cost.inputCost - none.inputCost);
  return `${strategy} costs ${more} more than none: it sent more uncached input (${usd(rest)}) than it saved`;
}
