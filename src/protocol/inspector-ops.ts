/**
 * The inspector's priced and live operations (an action's price, the session list and following one,
 * the request head, prompts from the page), gathered so messages.ts and parse.ts name them once:
 * their types, their results and their check. Each part lives in its own file (prices.ts, sessions.ts,
 * head.ts, prompt.ts).
 */
import type { HeadRequest, HeadResult } from './head';
import { parsePriceRequest, type ActionPrice, type PriceRequest } from './prices';
import type { CanPromptResult, PromptRequest } from './prompt';
import { parseSessionsRequest, type SessionsRequest, type SessionsResult } from './sessions';

export type InspectorOpRequest = PriceRequest | SessionsRequest | HeadRequest | PromptRequest;

/** The `result` type of each of these ops. */
export interface InspectorOpResults {
  price: ActionPrice;
  /** The same shape as messages.ts ActionResult (kept here so the two files do not import each other). */
  defer: { message: string };
  sessions: SessionsResult;
  follow: SessionsResult;
  head: HeadResult;
  canPrompt: CanPromptResult;
}

/** One of these requests from a webview, checked; undefined for anything else. */
export function parseInspectorOpRequest(r: Record<string, unknown>): InspectorOpRequest | undefined {
  switch (r.op) {
    case 'price':
    case 'defer':
      return parsePriceRequest(r);
    case 'sessions':
    case 'follow':
      return parseSessionsRequest(r);
    case 'head':
    case 'canPrompt':
      return { op: r.op };
    default:
      return undefined;
  }
}
