/**
 * The inspector requests every host answers the same way, the live chat session
 * (live.ts) and the standalone replay (host/standalone/replay-inspector.ts): the user's
 * pins, trims, restores and compactions, the originals behind an overlay, and the diff
 * of a call against the one before it.
 */
import type { ActionResult, OriginalsResult, RequestDiff, WebviewRequest } from '../../protocol';
import type { ContextEngine, PreparedCall } from '../engine/context-engine';
import { applyUserAction, InspectorActionError, originalsOf, type UserAction } from './actions';
import type { CallHistory } from './history';

export type InspectorRequest = Extract<WebviewRequest, { op: UserAction['op'] | 'originals' | 'diff' }>;

const INSPECTOR_OPS: ReadonlySet<string> = new Set<InspectorRequest['op']>([
  'pin',
  'unpin',
  'trim',
  'restore',
  'compact',
  'originals',
  'diff',
]);

export function isInspectorRequest(req: WebviewRequest): req is InspectorRequest {
  return INSPECTOR_OPS.has(req.op);
}

/** What a host's inspector is looking at. */
export interface InspectorTarget {
  readonly engine: ContextEngine;
  readonly history: CallHistory;
  /** The call index a user action is recorded at (the calls made so far). */
  readonly callIndex: number;
  /** The next request, or why there is none yet (shown to the user). */
  next(): Pick<PreparedCall, 'body' | 'blockMap'> | string;
  /** A user action was applied: the host re-prepares what it shows (and records the action if it replays them). */
  applied(action: UserAction): void;
}

/** The result of one inspector request; throws InspectorActionError with a message for the user. */
export function answerInspectorRequest(
  t: InspectorTarget,
  req: InspectorRequest,
): ActionResult | OriginalsResult | RequestDiff {
  switch (req.op) {
    case 'originals':
      return originalsOf(t.engine, req.overlayId);
    case 'diff': {
      const call = req.call ?? t.history.nextCall;
      if (call === t.history.nextCall) {
        const next = t.next();
        if (typeof next === 'string') throw new InspectorActionError(next);
        return t.history.diffNext(next.body, next.blockMap);
      }
      const d = t.history.diffOf(call);
      const h = t.history;
      if (!d) throw new InspectorActionError(`no call ${call} here (its ${h.length} calls end at ${h.nextCall - 1})`);
      return d;
    }
    default: {
      const result = applyUserAction(t.engine, req, t.callIndex);
      t.applied(req);
      return result;
    }
  }
}
