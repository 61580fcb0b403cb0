/** The inspector's title of a proxied session. */
import type { ProxiedSession } from './registry';

/** First words of the first user text, for the inspector's title. */
export function titleOf(entry: ProxiedSession): string {
  for (const m of entry.session.messages) {
    if (m.role !== 'user') continue;
    for (const b of m.blocks) {
      if (b.param.type !== 'text' || b.param.text.startsWith('<system-reminder>')) continue;
      const t = b.param.text.replace(/\s+/g, ' ').trim();
      if (t) return `Proxied: ${t.slice(0, 60)}`;
    }
  }
  return `Proxied session ${entry.id}`;
}
