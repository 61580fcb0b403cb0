/** The validator's cache_control rules: at most 4 breakpoints, none on thinking or empty text, 1h before 5m. */
import { cacheControlOf, isBlank, isThinking, nestedBlocks, type CacheControl } from '../api/blocks';
import type { RequestBody, Violation } from '../api/wire';
import { MAX_CACHE_CONTROL_BLOCKS, RULE, v } from './validate-rules';

interface Marker {
  readonly path: string;
  readonly cc: CacheControl;
  readonly messageIndex?: number;
  readonly blockIndex?: number;
}

/** Every cache_control in processing order: tools, system, messages (nested included), then top-level. */
function markers(body: RequestBody, out: Violation[]): Marker[] {
  const list: Marker[] = [];
  body.tools?.forEach((t, k) => {
    const cc = cacheControlOf(t);
    if (cc) list.push({ path: `tools.${k}`, cc });
  });
  if (Array.isArray(body.system)) {
    body.system.forEach((b, k) => {
      const cc = cacheControlOf(b);
      if (!cc) return;
      list.push({ path: `system.${k}`, cc });
      if (isBlank(b.text)) out.push(v(RULE.cacheControlEmptyText, 'cache_control cannot be set for empty text blocks'));
    });
  }
  body.messages.forEach((m, i) => {
    if (typeof m.content === 'string') return;
    m.content.forEach((b, j) => {
      const cc = cacheControlOf(b);
      if (cc) {
        list.push({ path: `messages.${i}.content.${j}`, cc, messageIndex: i, blockIndex: j });
        if (isThinking(b))
          out.push(
            v(
              RULE.cacheControlThinking,
              `messages.${i}.content.${j}.${b.type}.cache_control: Extra inputs are not permitted`,
              i,
              j,
            ),
          );
        if (b.type === 'text' && isBlank(b.text))
          out.push(v(RULE.cacheControlEmptyText, 'cache_control cannot be set for empty text blocks', i, j));
      }
      nestedBlocks(b).forEach((c, k) => {
        const ncc = cacheControlOf(c);
        if (ncc)
          list.push({ path: `messages.${i}.content.${j}.content.${k}`, cc: ncc, messageIndex: i, blockIndex: j });
      });
    });
  });
  if (body.cache_control) list.push({ path: 'cache_control', cc: body.cache_control });
  return list;
}

/** At most 4 breakpoints, none on thinking or empty text, and no 1h breakpoint after a 5m one. */
export function checkCacheControl(body: RequestBody, out: Violation[]): void {
  const list = markers(body, out);
  if (list.length > MAX_CACHE_CONTROL_BLOCKS) {
    out.push(
      v(
        RULE.cacheControlCount,
        `A maximum of ${MAX_CACHE_CONTROL_BLOCKS} blocks with cache_control may be provided. Found ${list.length}.`,
      ),
    );
  }
  // A bare {type: 'ephemeral'} counts as 5m; the order is one pass over tools, system, messages.
  let seen5m = false;
  for (const m of list) {
    const ttl = m.cc.ttl ?? '5m';
    if (ttl === '5m') seen5m = true;
    else if (seen5m) {
      out.push(
        v(
          RULE.cacheTtlOrder,
          `${m.path}.cache_control.ttl: a ttl='1h' cache_control block must not come after ` +
            "a ttl='5m' cache_control block. " +
            'Note that blocks are processed in the following order: `tools`, `system`, `messages`.',
          m.messageIndex,
          m.blockIndex,
        ),
      );
    }
  }
}
