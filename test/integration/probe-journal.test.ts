/**
 * Probe of the proxy's journals through the built CLI (`npm run build`, then `node dist/cli.js
 * proxy` against the local test server): a restart continues a string-content session with
 * the user's trim and pin; a journal that fails to write is reported (stderr and inspector),
 * leaves the other sessions journaled and is caught up once it can be written again; 1,000
 * sessions keep the descriptors bounded and an evicted session comes back from its journal;
 * files are 0600 in a 0700 directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalPath, loadJournal, MAX_OPEN_JOURNALS } from '../../src/core/store';
import { startTestServer, type TestServer } from '../../src/dev/server';
import type { MessageParam } from '../../src/core/session/types';
import { waitFor } from './cli';
import { CLI, fdCount, inspectorRequest, postMessages, startCliProxy, type CliProxy } from './proxy-cli';

const MODEL = 'claude-sonnet-4-6';
const request = (messages: MessageParam[]): Record<string, unknown> => ({ model: MODEL, max_tokens: 50, messages });

let server: TestServer;
const running: CliProxy[] = [];
const dirs: string[] = [];
const tempDir = (): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-probe-journal-'));
  dirs.push(d);
  return d;
};
async function proxy(args: string[]): Promise<CliProxy> {
  const p = await startCliProxy(['--upstream', server.url, ...args]);
  running.push(p);
  return p;
}

beforeAll(async () => {
  expect(fs.existsSync(CLI), 'run `npm run build` first').toBe(true);
  server = await startTestServer({ fallback: 'echo' });
});
afterAll(async () => {
  for (const p of running) await p.stop('SIGKILL');
  await server.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

interface Snap {
  findings: { id: string; message: string }[];
}
async function snapshot(p: CliProxy): Promise<Snap> {
  const [msg] = (await inspectorRequest(p, { type: 'ready' })) as [{ type: string; snapshot: Snap }];
  expect(msg.type).toBe('snapshot');
  return msg.snapshot;
}

describe('probe: journals of the proxy CLI', () => {
  it('a restart (SIGKILL) continues a string-content session with the user\u2019s trim and pin; files 0600, directory 0700', async () => {
    const dir = path.join(tempDir(), 'data', 'proxy-sessions');
    const big = 'line of a big file\n'.repeat(300);
    const history: MessageParam[] = [
      { role: 'user', content: big },
      { role: 'assistant', content: 'read.' },
      { role: 'user', content: 'a short note to keep' },
    ];
    // Observe-only `none` (the CLI's default): the restored trim must apply to the first request after the restart.
    const first = await proxy(['--strategy', 'none', '--journal', dir]);
    expect((await postMessages(first.url, 'probe-str', request(history))).status).toBe(200);
    const trim = await inspectorRequest(first, {
      type: 'request',
      id: 1,
      request: { op: 'trim', blockId: 'probe-str.m0.0', text: 'trimmed by the user' },
    });
    const pin = await inspectorRequest(first, {
      type: 'request',
      id: 2,
      request: { op: 'pin', blockId: 'probe-str.m2.0' },
    });
    expect([trim[0], pin[0]]).toMatchObject([
      { type: 'response', ok: true },
      { type: 'response', ok: true },
    ]);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of ['proxy-probe-str.jsonl', 'proxy-probe-str.jsonl.lock'])
      expect(fs.statSync(path.join(dir, f)).mode & 0o777, f).toBe(0o600);
    await first.stop('SIGKILL');

    const second = await proxy(['--strategy', 'none', '--journal', dir]);
    server.reset();
    const r = await postMessages(
      second.url,
      'probe-str',
      request([...history, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'again' }]),
    );
    expect(r.status).toBe(200);
    const sent = server.requests.filter((q) => q.path === '/v1/messages').at(-1)!.body as { messages: MessageParam[] };
    expect(JSON.stringify(sent.messages[0].content)).toContain('trimmed by the user');
    expect(JSON.stringify(sent.messages[0].content)).not.toContain('line of a big file');
    await second.stop();
    expect(fs.readdirSync(dir).sort()).toEqual(['proxy-probe-str.jsonl']);
    const loaded = loadJournal(journalPath(dir, 'proxy-probe-str'));
    expect(loaded.session.messages).toHaveLength(5);
    expect(
      loaded.session
        .allOverlays()
        .map((o) => o.kind)
        .sort(),
    ).toEqual(['pin', 'trim']);
  }, 60_000);

  it('a journal that cannot be written is reported and retried; the other sessions stay journaled', async () => {
    const dir = tempDir();
    const p = await proxy(['--strategy', 'default', '--journal', dir]);
    const victim: MessageParam[] = [{ role: 'user', content: 'victim starts' }];
    expect((await postMessages(p.url, 'victim', request(victim))).status).toBe(200);
    const others = Array.from({ length: MAX_OPEN_JOURNALS + 6 }, (_, i): MessageParam[] => [
      { role: 'user', content: `other ${i} starts` },
    ]);
    for (const [i, m] of others.entries())
      expect((await postMessages(p.url, `other-${i}`, request(m))).status).toBe(200);
    // The victim's journal went idle (descriptor and lock given back): its file is swapped for a directory.
    const file = journalPath(dir, 'proxy-victim');
    const links = fs.readdirSync(`/proc/${p.pid}/fd`).map((fd) => fs.readlinkSync(`/proc/${p.pid}/fd/${fd}`));
    expect(links).not.toContain(file);
    const saved = fs.readFileSync(file);
    fs.rmSync(file);
    fs.mkdirSync(file);

    victim.push({ role: 'assistant', content: 'victim reply 1' }, { role: 'user', content: 'victim asks 1' });
    expect((await postMessages(p.url, 'victim', request(victim))).status).toBe(200);
    await waitFor(
      () => /session victim: journal write failed .*EISDIR/.test(p.stderr()),
      10_000,
      'the journal error on stderr',
    );
    expect((await snapshot(p)).findings[0].message).toMatch(
      /^Journal: journal write failed \(records kept for a retry\).*EISDIR/,
    );
    others[0].push({ role: 'assistant', content: 'other reply' }, { role: 'user', content: 'other 0 asks again' });
    expect((await postMessages(p.url, 'other-0', request(others[0]))).status).toBe(200);
    expect(fs.readFileSync(journalPath(dir, 'proxy-other-0'), 'utf8')).toContain('other 0 asks again');

    fs.rmdirSync(file);
    fs.writeFileSync(file, saved, { mode: 0o600 });
    victim.push({ role: 'assistant', content: 'victim reply 2' }, { role: 'user', content: 'victim asks 2' });
    expect((await postMessages(p.url, 'victim', request(victim))).status).toBe(200);
    expect((await snapshot(p)).findings.some((f) => f.id === 'journal-error')).toBe(false);
    await p.stop();
    const loaded = loadJournal(file);
    expect(loaded.issues).toEqual([]);
    expect(loaded.session.messages.map((m) => m.blocks[0].param)).toEqual(
      victim.map((m) => ({ type: 'text', text: m.content })),
    );
    expect(loaded.session.calls).toHaveLength(3);
  }, 60_000);

  it('1,000 sessions through one proxy: descriptors and locks stay bounded, an evicted session comes back from its journal', async () => {
    const dir = tempDir();
    const p = await proxy(['--strategy', 'none', '--journal', dir, '--verbose']);
    const first: MessageParam[] = [{ role: 'user', content: 'the first session' }];
    expect((await postMessages(p.url, 'many-0', request(first))).status).toBe(200);
    const send = async (from: number, to: number): Promise<void> => {
      let next = from;
      const worker = async (): Promise<void> => {
        while (next < to) {
          const i = next++;
          const r = await postMessages(p.url, `many-${i}`, request([{ role: 'user', content: `session ${i}` }]));
          expect(r.status).toBe(200);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
    };
    await send(1, 40);
    const baseline = fdCount(p.pid);
    await send(40, 1000);
    await waitFor(
      () => fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).length === 1000,
      20_000,
      '1,000 journals',
    );
    expect(fdCount(p.pid)).toBeLessThanOrEqual(baseline + MAX_OPEN_JOURNALS);
    const intoDir = fs.readdirSync(`/proc/${p.pid}/fd`).filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/${p.pid}/fd/${fd}`).startsWith(dir);
      } catch {
        return false;
      }
    });
    expect(intoDir.length).toBeLessThanOrEqual(MAX_OPEN_JOURNALS);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.lock')).length).toBeLessThanOrEqual(MAX_OPEN_JOURNALS);
    first.push({ role: 'assistant', content: 'hello' }, { role: 'user', content: 'more' });
    expect((await postMessages(p.url, 'many-0', request(first))).status).toBe(200);
    await waitFor(
      () => p.stderr().includes('session many-0: continued from its journal (1 messages'),
      10_000,
      'many-0 restored',
    );
    await p.stop();
    expect(fs.existsSync(journalPath(dir, 'proxy-many-0.e2'))).toBe(false);
    expect(loadJournal(journalPath(dir, 'proxy-many-0')).session.messages).toHaveLength(3);
  }, 180_000);
});
