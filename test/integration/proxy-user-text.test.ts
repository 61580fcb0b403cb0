/**
 * Never lose what the user said, through the proxy: a Claude-Code-shaped client (real SDK,
 * thinking with signatures, eight `<system-reminder>` blocks before the prompt, reminders
 * appended to tool results) runs one prompt as a 40-call loop of large reads through
 * `trimline proxy --strategy default`. Every user text block it sent reaches upstream verbatim
 * on every call, every request is valid, and the trimming pays: fewer message tokens and a
 * smaller input-side bill than `none`, priced by the one pricer from the upstream's usage.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf } from '../../src/core/cache/cost';
import type { RequestBody } from '../../src/core/api/wire';
import { startTestServer, type TestServer } from '../../src/dev/server';
import { startProxy, type ProxyHandle } from '../../src/host/proxy/server';
import { ccClient, ccTurn, CC_MODEL } from './claude-code-client';

const CALLS = 40;
const REMINDERS = [
  "As you answer the user's questions, you can use the following context:\n# claudeMd\nAlways run `npm test` " +
    'before you say you are done.',
  "# currentDate\nToday's date is 2026-11-26.",
  'Working directory: /work/app. Is a git repository: true.',
  'The following skills are available: review, release.',
  'The following deferred tools are available: WebFetch, NotebookEdit.',
  'Git: never force-push; commit only when asked.',
  'The user has CLAUDE.md rules for tests: keep them fast.',
  'Output style: concise.',
].map((t) => `<system-reminder>\n${t}\n</system-reminder>`);
const PROMPT = 'Read every module under src/ and check that they agree with each other.';

interface Run {
  proxy: ProxyHandle;
  requests: TestServer['requests'];
  client: ReturnType<typeof ccClient>;
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ fallback: 'fail' });
});
afterAll(() => server.close());

async function run(strategy: string, id: string): Promise<Run> {
  server.reset();
  server.script(...Array.from({ length: CALLS }, (_, k) => () => ccTurn(k, CALLS)));
  const proxy = await startProxy({
    upstream: server.url,
    strategy,
    journalDir: mkdtempSync(join(tmpdir(), 'trimline-usertext-')),
  });
  const client = ccClient(proxy.url, id, { firstReminders: REMINDERS, readLines: 400 });
  const calls = await client.prompt(PROMPT);
  expect(calls).toBe(CALLS);
  return { proxy, client, requests: server.requests.filter((r) => r.path === '/v1/messages') };
}

/** Every text block of every user message the client sent, in order. */
function userTexts(messages: readonly Anthropic.MessageParam[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const b of m.content) if (b.type === 'text') out.push(b.text);
  }
  return out;
}

const inputCost = (u: NonNullable<NonNullable<TestServer['requests'][number]['response']>['usage']>): number =>
  costOf({ ...u, output_tokens: 0 }, CC_MODEL).total;
const messageTokens = (u: {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}): number => u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;

describe('proxy --strategy default keeps every user text block verbatim (Claude-Code-shaped 40-call loop)', () => {
  let none: Run;
  let trimmed: Run;
  beforeAll(async () => {
    none = await run('none', 'sess-ut-none');
    trimmed = await run('default', 'sess-ut-default');
  }, 180_000);
  afterAll(async () => {
    await none.proxy.close();
    await trimmed.proxy.close();
  });

  it('every user text block the client sent reaches upstream verbatim, on every call', () => {
    expect(trimmed.requests).toHaveLength(CALLS);
    for (const r of trimmed.requests) {
      const sent = JSON.parse(trimmed.client.sent[r.seq - trimmed.requests[0].seq]) as {
        messages: Anthropic.MessageParam[];
      };
      const want = userTexts(sent.messages);
      const got = userTexts((r.body as RequestBody).messages);
      for (const t of REMINDERS) expect(want).toContain(t);
      expect(got).toEqual(expect.arrayContaining(want));
      // The first message leads with the eight reminders and the prompt, in order.
      const first = (r.body as RequestBody).messages[0];
      expect(first.role).toBe('user');
      const firstTexts =
        typeof first.content === 'string'
          ? [first.content]
          : first.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text);
      expect(firstTexts.slice(0, REMINDERS.length + 1)).toEqual([...REMINDERS, PROMPT]);
    }
  });

  it('every request is valid (the upstream checker, thinking with signatures included)', () => {
    for (const r of trimmed.requests) expect(r.validation.ok, r.validation.message).toBe(true);
  });

  it('trimming pays: fewer message tokens and a smaller input-side bill than none', () => {
    const sum = (
      rs: Run['requests'],
      f: (u: NonNullable<NonNullable<Run['requests'][number]['response']>['usage']>) => number,
    ): number => rs.reduce((a, r) => a + f(r.response!.usage!), 0);
    const tokens = sum(trimmed.requests, messageTokens) / sum(none.requests, messageTokens);
    const cost = sum(trimmed.requests, inputCost) / sum(none.requests, inputCost);
    console.log(
      `proxy default vs none on a 40-call loop: tokens ${(tokens * 100).toFixed(1)}%, input-side cost ` +
        `${(cost * 100).toFixed(1)}%`,
    );
    // The aims of the issue for a single-prompt session with large reads (not measured values).
    expect(tokens).toBeLessThanOrEqual(0.6);
    expect(cost).toBeLessThanOrEqual(0.85);
  });
});
