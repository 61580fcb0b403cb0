/**
 * A 1-hour marker may not follow a 5-minute one. Behind the proxy the client's system breakpoint
 * comes first: when it is a 5-minute one, the engine keeps its messages at 5 minutes however much
 * the long TTL would pay (else every request would be refused and sent untouched; the engine side
 * is tested in test/unit/cache/long-ttl.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { headAllowsLongTtl } from '../../../src/core/proxy/upstream';
import type { RequestBody } from '../../../src/core/api/wire';

describe('the client head decides whether messages may be written for 1 hour', () => {
  it('reads the client head: any 5-minute marker there forbids 1-hour markers after it', () => {
    const sys = (ttl?: '1h'): RequestBody => ({
      model: 'm',
      max_tokens: 1,
      messages: [],
      system: [{ type: 'text', text: 's', cache_control: ttl ? { type: 'ephemeral', ttl } : { type: 'ephemeral' } }],
    });
    expect(headAllowsLongTtl(sys())).toBe(false);
    expect(headAllowsLongTtl(sys('1h'))).toBe(true);
    expect(headAllowsLongTtl({ model: 'm', max_tokens: 1, messages: [] })).toBe(true);
  });
});
