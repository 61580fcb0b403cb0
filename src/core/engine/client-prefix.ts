/**
 * The client's system prompt and tools when a session does not hold them: a replayed transcript
 * (Claude Code records neither) is decided as the proxy would decide it, with the prefix that sat
 * in front of every recorded request. Its size comes from the recorded usage (report/sizing.ts:
 * the first call's total minus its messages); the engine plans with it (the per-model minimum
 * cacheable prefix is on the whole prefix) and the request carries one placeholder system block
 * standing for it, where the client's own system breakpoint was.
 */
import type { TextBlockParam } from '../session/types';

export interface ClientPrefix {
  /** Tokens of tools + system prompt (+ injected reminders) in front of the messages. */
  readonly tokens: number;
  /** Of them, read from the cache at the first call (kept warm by the client's other sessions). */
  readonly shared?: number;
}

/** The placeholder system block of an inferred prefix (its text names the size; the planner counts `tokens`). */
export function placeholderSystem(p: ClientPrefix): TextBlockParam[] {
  const text = `[system prompt and tools of the recording client, not in the transcript: ${Math.round(p.tokens)}`;
  return [{ type: 'text', text: `${text} tokens inferred from its usage]` }];
}
