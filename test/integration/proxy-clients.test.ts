/**
 * The proxy names the agent each session came from, from the request as the real
 * @anthropic-ai/sdk sends it (headers the host passes on, the system prompt), in the session
 * list the inspector's picker and the status bar read. The key never reaches the engine.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionFollower } from '../../src/core/proxy/session-list';
import { startTestServer, type TestServer } from '../../src/dev/server';
import { startProxy, type ProxyHandle } from '../../src/host/proxy/server';

describe('proxy: the agent of each session', () => {
  let server: TestServer;
  let proxy: ProxyHandle;
  beforeAll(async () => {
    server = await startTestServer({ fallback: 'echo' });
    proxy = await startProxy({ upstream: server.url, strategy: 'none' });
  });
  afterAll(async () => {
    await proxy.close();
    await server.close();
  });

  const ask = async (system: string, prompt: string, headers: Record<string, string> = {}): Promise<void> => {
    const client = new Anthropic({
      apiKey: 'sk-ant-test-key',
      baseURL: proxy.url,
      defaultHeaders: headers,
      maxRetries: 0,
    });
    await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      system,
      messages: [{ role: 'user', content: prompt }],
    });
  };

  it('SDK, Roo, Cline and Claude Code sessions are named as such', async () => {
    await ask('You are a helpful assistant.', 'plain sdk program');
    await ask('You are Roo, a highly skilled software engineer.', '<task>\nfix the bug\n</task>');
    await ask('You are Cline, a highly skilled software engineer.', '<task>\nadd a test\n</task>');
    await ask('You are a helpful assistant.', 'from the claude cli', {
      'user-agent': 'claude-cli/2.1.114 (external, cli)',
      'x-app': 'cli',
    });
    // Observe-only records each call after its bytes went upstream: wait for all four.
    for (let i = 0; i < 100 && proxy.engine.sessions.all().length < 4; i++) await new Promise((r) => setTimeout(r, 20));
    const list = new SessionFollower().list(proxy.engine).sessions;
    const byTitle = (t: string): string | undefined => list.find((s) => s.title.includes(t))?.client;
    expect(byTitle('plain sdk program')).toBe('SDK');
    expect(byTitle('fix the bug')).toBe('Roo Code');
    expect(byTitle('add a test')).toBe('Cline');
    expect(byTitle('from the claude cli')).toBe('Claude Code');
    expect(JSON.stringify(proxy.engine.sessions.all().map((e) => e.session.messages))).not.toContain('sk-ant-test-key');
  });
});
