/**
 * A restarted `trimline proxy` (the host's server, journaling, cache diagnostics on) judges
 * the first call after the restart against the request sent before it: the journal kept its
 * fingerprint, usage and response id, so the API is asked with the right
 * `previous_message_id` and the local diff finds the client only appended.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../../src/dev/server';
import { startProxy } from '../../src/host/proxy/server';
import type { CallVerdict } from '../../src/protocol/verdicts';
import { ccClient, ccTurn } from './claude-code-client';

describe('cache verdicts across a proxy restart', () => {
  it('the first call after the restart is compared with the last one before it: no miss, and the API agrees', async () => {
    let clock = Date.UTC(2026, 10, 26, 9);
    const now = (): number => (clock += 10_000);
    const server = await startTestServer({ fallback: 'fail', now: () => clock });
    const journalDir = mkdtempSync(join(tmpdir(), 'trimline-verdict-restart-'));
    server.script(...Array.from({ length: 8 }, (_, k) => () => ccTurn(k, 4)));
    const verdictsOf = (proxy: Awaited<ReturnType<typeof startProxy>>): CallVerdict[] =>
      proxy.engine
        .active()!
        .inspector.snapshot()!
        .calls.flatMap((c) => (c.verdict ? [c.verdict] : []));
    try {
      const one = await startProxy({ upstream: server.url, strategy: 'none', journalDir, cacheDiagnostics: true, now });
      const client = ccClient(one.url, 'sess-restart-1');
      let before: CallVerdict[];
      try {
        expect(await client.prompt('Read the modules.')).toBe(4);
        before = verdictsOf(one);
      } finally {
        await one.close();
      }
      expect(before.map((v) => v.miss?.reason ?? null)).toEqual(['first_call', null, null, null]);

      // Same journal, the same conversation (its history kept), a new proxy on another port.
      const two = await startProxy({ upstream: server.url, strategy: 'none', journalDir, cacheDiagnostics: true, now });
      const client2 = ccClient(two.url, 'sess-restart-1');
      client2.messages.push(...client.messages);
      let after: CallVerdict[];
      try {
        expect(await client2.prompt('Now the tests.')).toBe(4);
        after = verdictsOf(two);
      } finally {
        await two.close();
      }
      const upstream = server.requests.filter((r) => r.path === '/v1/messages');
      expect(upstream).toHaveLength(8);
      // The API was asked about the reply before the restart, and found nothing diverged.
      expect(
        (upstream[4].body as { diagnostics: { previous_message_id: string | null } }).diagnostics.previous_message_id,
      ).toMatch(/^msg_/);
      expect(upstream[4].response!.cacheMissReason).toBeNull();
      // The continued session's calls go on from 4; the first is a clean append, not a first call.
      expect(after.map((v) => v.call)).toEqual([4, 5, 6, 7]);
      expect(after.map((v) => v.miss?.reason ?? null)).toEqual([null, null, null, null]);
      expect(after[0]).toMatchObject({ local: null, api: null });
      expect(after[0].usage!.read).toBeGreaterThan(0);
    } finally {
      await server.close();
      rmSync(journalDir, { recursive: true, force: true });
    }
  }, 60_000);
});
