/**
 * Issue 27, finding 1, as reported: through the built CLI (`node dist/cli.js proxy --strategy
 * default`, journal on) against the local test server, a request holding 6 M letters of one
 * class once overflowed the token counter's stack in a background step and ended the process,
 * and the session's journal ended the next process too. Now the proxy answers the next call
 * of the same session and of a new one, also after a restart from the journal.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/dev/server';
import type { MessageParam } from '../../src/core/session/types';
import { CLI, postMessages, startCliProxy, type CliProxy } from './proxy-cli';

const MODEL = 'claude-sonnet-4-6';
const request = (messages: MessageParam[]): Record<string, unknown> => ({ model: MODEL, max_tokens: 50, messages });
const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let server: TestServer;
let dir: string;
const running: CliProxy[] = [];

beforeAll(async () => {
  expect(fs.existsSync(CLI), 'run `npm run build` first').toBe(true);
  // The test server counts 3.5 chars per token: lift its window so that it answers 6 M chars.
  server = await startTestServer({ fallback: 'echo', contextWindow: 10_000_000 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-probe-poison-'));
});
afterAll(async () => {
  for (const p of running) await p.stop('SIGKILL');
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function proxy(): Promise<CliProxy> {
  const p = await startCliProxy(['--upstream', server.url, '--strategy', 'default', '--journal', dir]);
  running.push(p);
  return p;
}

/** Calls of the poisoned session and of new ones, spread over the background counting; all answered. */
async function stillServes(p: CliProxy, history: MessageParam[], tag: string): Promise<void> {
  for (let i = 0; i < 4; i++) {
    await pause(500);
    const answer: MessageParam = { role: 'assistant', content: `answer ${tag} ${i}` };
    const next = [...history, answer, { role: 'user' as const, content: `question ${tag} ${i}` }];
    expect((await postMessages(p.url, 'poisoned', request(next), 60_000)).status).toBe(200);
    const fresh = await postMessages(p.url, `fresh-${tag}-${i}`, request([{ role: 'user', content: 'hello' }]));
    expect(fresh.status).toBe(200);
  }
  expect(p.child.exitCode).toBeNull();
  expect(p.child.signalCode).toBeNull();
}

describe('probe: one request cannot kill the proxy (issue 27)', () => {
  it('6 M same-class chars: the proxy lives, the session and new ones go on, also after a restart', async () => {
    const first = await proxy();
    const poison: MessageParam[] = [{ role: 'user', content: 'B'.repeat(6_000_000) }];
    expect((await postMessages(first.url, 'poisoned', request(poison), 60_000)).status).toBe(200);
    await stillServes(first, poison, 'a');
    expect(first.stderr()).not.toMatch(/RangeError|Maximum call stack/);
    await first.stop('SIGKILL');

    const second = await proxy();
    await stillServes(second, poison, 'b');
    expect(second.stderr()).not.toMatch(/RangeError|Maximum call stack/);
  });
});
