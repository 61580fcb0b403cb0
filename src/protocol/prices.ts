/**
 * The protocol's price-before-action part (issue 17): before the inspector pins, trims,
 * restores, compacts or switches strategy it asks the host what that costs against the
 * prompt cache (src/core/cache/action-price.ts), and an action that will not pay back over
 * the calls the session is expected to make is confirmed first, or deferred to the next
 * cold cache. Kept apart from protocol.ts so the protocol-package move stays a plain move.
 */

/** The actions that have a price (the inspector's own ops). */
export type PricedAction =
  | { op: 'pin'; blockId: string }
  | { op: 'unpin'; blockId: string }
  | { op: 'trim'; blockId: string; text?: string }
  | { op: 'restore'; blockId: string }
  | { op: 'compact' }
  | { op: 'setStrategy'; spec: string };

export type PriceRequest = { op: 'price'; action: PricedAction } | { op: 'defer'; action: PricedAction };

export interface ActionPrice {
  /** USD the next call pays extra to write again what it would have read from the cache (0 when the cache is cold). */
  rewriteCost: number;
  /** Tokens of the cached prefix written again. */
  rewriteTokens: number;
  /** USD saved on every later call (negative: the action makes each call dearer). */
  savingPerCall: number;
  /** Tokens fewer per call (negative: more). */
  tokensPerCall: number;
  /** Calls until the saving has paid the rewrite; null when it never does (no saving). */
  breakEvenCalls: number | null;
  /** Calls the session is expected to make still (from its own length so far). */
  expectedCalls: number;
  /** The rewrite is paid back within the expected calls (or costs nothing). */
  paysBack: boolean;
  /** The cache is cold now (idle past its TTL): the rewrite is free. */
  cold: boolean;
  /** The price in words, for the status line and the confirmation. */
  summary: string;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const id = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 256;

/** A priced action from a webview, or undefined when malformed. */
export function parsePricedAction(v: unknown): PricedAction | undefined {
  if (!isObj(v)) return undefined;
  switch (v.op) {
    case 'pin':
    case 'unpin':
    case 'restore':
      return id(v.blockId) ? { op: v.op, blockId: v.blockId } : undefined;
    case 'trim':
      if (!id(v.blockId) || (v.text !== undefined && (typeof v.text !== 'string' || v.text.length > 200_000)))
        return undefined;
      return { op: 'trim', blockId: v.blockId, ...(typeof v.text === 'string' && v.text ? { text: v.text } : {}) };
    case 'compact':
      return { op: 'compact' };
    case 'setStrategy':
      return typeof v.spec === 'string' && v.spec.length > 0 && v.spec.length <= 1000
        ? { op: 'setStrategy', spec: v.spec }
        : undefined;
    default:
      return undefined;
  }
}

/** A `price` or `defer` request from a webview, or undefined. */
export function parsePriceRequest(r: Record<string, unknown>): PriceRequest | undefined {
  if (r.op !== 'price' && r.op !== 'defer') return undefined;
  const action = parsePricedAction(r.action);
  return action ? { op: r.op, action } : undefined;
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Checks a price from the host (the webview's side). */
export function isActionPrice(v: unknown): v is ActionPrice {
  return (
    isObj(v) &&
    num(v.rewriteCost) &&
    num(v.rewriteTokens) &&
    num(v.savingPerCall) &&
    num(v.tokensPerCall) &&
    (v.breakEvenCalls === null || num(v.breakEvenCalls)) &&
    num(v.expectedCalls) &&
    typeof v.paysBack === 'boolean' &&
    typeof v.cold === 'boolean' &&
    typeof v.summary === 'string'
  );
}
