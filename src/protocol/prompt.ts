/**
 * The protocol's prompt part (issue 17): a host that can take another prompt from the
 * inspector itself (the offline demo, after its scripted prompts) answers `canPrompt`; the
 * inspector then shows a prompt box that sends `send`. Kept apart from protocol.ts so the
 * protocol-package move stays a plain move.
 */

export interface CanPromptResult {
  /** What the box says while empty. */
  placeholder: string;
}

export type PromptRequest = { op: 'canPrompt' };

/** Checks a `canPrompt` answer (the webview's side). */
export function isCanPromptResult(v: unknown): v is CanPromptResult {
  return typeof v === 'object' && v !== null && typeof (v as { placeholder?: unknown }).placeholder === 'string';
}
