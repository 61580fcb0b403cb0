/**
 * The client's system prompt and tools of a recorded session, sized from its usage (sizing.ts), for
 * the replay paths that decide as the proxy would (`trimline replay`, `inspect`, the report).
 */
import type { ClientPrefix } from '../engine/client-prefix';
import type { ImportedSession } from '../session/types';
import { sizeSession } from './sizing';
import type { InferredPrefix } from './bill-types';
import type { FitResult } from './fit';

/** The engine's view of an inferred prefix: all of it in front of the messages; shared when the first call read it. */
export function clientPrefixOf(p: InferredPrefix): ClientPrefix {
  // Whole tokens: the sizes are spread from usage and may carry fractions; a request counts whole tokens.
  // An earlier conversation the transcript does not hold is sent in front of its messages too.
  const tokens = Math.round(p.shared + p.session + (p.earlier ?? 0));
  return { tokens, shared: p.sharedWarm ? Math.round(p.shared) : 0 };
}

/** The prefix in front of a transcript's messages when the transcript does not hold it; undefined without usage. */
export function inferClientPrefix(imp: ImportedSession): ClientPrefix | undefined {
  if (imp.system || imp.tools?.length) return undefined;
  const model = imp.model ?? imp.calls.find((c) => c.model)?.model;
  if (!model || !imp.calls.some((c) => c.usage)) return undefined;
  try {
    const p = clientPrefixOf(sizeSession(imp, model).prefix);
    return p.tokens > 0 ? p : undefined;
  } catch {
    // A session the sizing cannot read is replayed on its messages alone.
    return undefined;
  }
}

/**
 * What a recorded call's client sent in front of its messages, as a key: the part shared across sessions (by client
 * version), the session's part (rewritten on a restart or a session invalidation) and the earlier conversation a
 * mid-conversation transcript implies (bill-model.ts builds the same blocks). Two calls with other keys sent another
 * system prompt: the proxy sees the client's head change.
 */
export function clientHeadKeys(fit: FitResult, imp: ImportedSession): string[] {
  return imp.calls.map((call, i) => {
    const ctx = fit.contexts[i];
    const p = fit.prefixes.get(ctx?.model ?? '') ?? fit.prefix;
    const version = ctx?.prefixKey ?? '';
    const e = fit.earlier[i];
    const earlier = e && e.tokens > 0 ? `${e.key}#${fit.epochs[i] ?? 0}:${Math.round(e.tokens)}` : '';
    const session = `${version}#${clientRestarts(fit, call)}#${fit.sessionEpochs[i] ?? 0}`;
    return `${Math.round(p.shared)}@${version}|${Math.round(p.session)}@${session}|${earlier}`;
  });
}

/** Client restarts among the messages a call sent (each rebuilt the session's part of the system prompt). */
export function clientRestarts(fit: FitResult, call: { epochStart: number; at: number }): number {
  let n = 0;
  for (let k = call.epochStart; k < call.at; k++) if (fit.messages[k]?.clientRestart) n++;
  return n;
}
