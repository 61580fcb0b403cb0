/**
 * Reference retention: identifiers (file paths, hashes, ids) that first appeared in a
 * tool result, that the model later used, and that are still visible in the request
 * at the call where it used them. Deliberately independent of the engine's own
 * reference extraction (src/core/trimming/refs.ts), so the ruler is not the engine's.
 */
import type { RequestBody } from '../../src/core/api/wire';
import type { ContentBlockParam, LogMessage } from '../../src/core/session/types';

const ID_PATTERNS: readonly RegExp[] = [
  // Paths with at least one separator and a final segment with an extension, POSIX or Windows.
  /(?:[A-Za-z]:)?[\\/]?(?:[\w.@-]+[\\/])+[\w@-]+\.[A-Za-z0-9]{1,8}\b/g,
  // Hex hashes (git SHAs, digests): 7–64 hex chars with both a digit and a letter.
  /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b/g,
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  // Vendor-style ids: prefix_ + long token.
  /\b[a-z]{2,8}_[A-Za-z0-9]{8,}\b/g,
];

export function identifiers(text: string): Set<string> {
  const out = new Set<string>();
  for (const re of ID_PATTERNS) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) out.add(m[0].replace(/\\/g, '/'));
  }
  return out;
}

function strings(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
}

/** The text a block shows the model (tool_use inputs as their raw string values). */
export function visibleText(b: ContentBlockParam | { type: string }): string {
  const x = b as ContentBlockParam;
  switch (x.type) {
    case 'text':
      return x.text;
    case 'tool_use': {
      const s: string[] = [x.name];
      strings(x.input, s);
      return s.join('\n');
    }
    case 'tool_result':
      if (typeof x.content === 'string') return x.content;
      return (x.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    case 'thinking':
      return x.thinking;
    default:
      return '';
  }
}

export function requestText(body: RequestBody): string {
  const parts: string[] = [];
  for (const m of body.messages) {
    if (typeof m.content === 'string') parts.push(m.content);
    else for (const b of m.content) parts.push(visibleText(b));
  }
  return parts.join('\n').replace(/\\/g, '/');
}

/** Tracks where identifiers first appeared, and which ones each model call used. */
export class RetentionTracker {
  private readonly firstSeenInToolResult = new Set<string>();
  private readonly seen = new Set<string>();
  private scanned = 0;
  needed = 0;
  retained = 0;
  readonly misses: string[] = [];

  /** Take in log messages before the call (in order), then check the call's output against its request. */
  check(messages: readonly LogMessage[], at: number, body: RequestBody): void {
    for (; this.scanned < at && this.scanned < messages.length; this.scanned++) {
      for (const b of messages[this.scanned].blocks) {
        const ids = identifiers(visibleText(b.param));
        for (const id of ids) {
          if (this.seen.has(id)) continue;
          this.seen.add(id);
          // Tool output: tool_result blocks, and output carried as user text (a Cline-style result, an observation).
          if (b.kind === 'tool_result' || b.observation) this.firstSeenInToolResult.add(id);
        }
      }
    }
    const out = messages[at];
    if (!out || out.role !== 'assistant') return;
    const used = new Set<string>();
    for (const b of out.blocks)
      if (b.kind === 'tool_use' || b.kind === 'text') for (const id of identifiers(visibleText(b.param))) used.add(id);
    const needed = [...used].filter((id) => this.firstSeenInToolResult.has(id));
    if (!needed.length) return;
    const hay = requestText(body);
    for (const id of needed) {
      this.needed++;
      if (hay.includes(id)) this.retained++;
      else if (this.misses.length < 50) this.misses.push(id);
    }
  }

  ratio(): number {
    return this.needed ? this.retained / this.needed : 1;
  }
}
