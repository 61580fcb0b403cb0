/**
 * Against a server nobody here wrote: @modelcontextprotocol/server-everything,
 * over stdio, Streamable HTTP and SSE (the fallback), through the whole loop:
 * the real SDK client against the local API server playing a scripted model
 * that calls its image, resource-link, structured-content and echo tools.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentLoop } from '../../src/core/agent/loop';
import { resolveAgentConfig } from '../../src/core/agent/config';
import { NodeWorkspace } from '../../src/core/agent/node-workspace';
import type { McpTransportConfig } from '../../src/core/mcp/config';
import { McpToolSource } from '../../src/core/mcp/source';
import { Session } from '../../src/core/session/session';
import { startTestServer } from '../../src/dev/server';
import type { ScriptedTurn } from '../../src/dev/types';
import { EVERYTHING_SERVER } from '../unit/mcp/helpers';

/** Time for the HTTP server to start listening. */
const LISTEN_TIMEOUT_MS = 20_000;
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) c.kill();
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** server-everything as an HTTP server (`streamableHttp` or `sse`) on a free port; resolves when it listens. */
async function httpEverything(mode: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_SERVER, mode], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything ${mode} did not start`)), LISTEN_TIMEOUT_MS);
    child.stderr!.on('data', (b: Buffer) => {
      if (/listening on port|running on port/i.test(b.toString())) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return port;
}

const call = (text: string, name: string, input: Record<string, unknown>): ScriptedTurn => ({
  content: [
    { type: 'text', text },
    { type: 'tool_use', name: `mcp__everything__${name}`, input },
  ],
});

interface Outcome {
  readonly toolNames: string[];
  /** The tool_result blocks of the last request, in call order. */
  readonly results: { content: unknown; is_error?: boolean }[];
  readonly invalid: number;
  /** The Trimline log lines of the server. */
  readonly log: string[];
}

/** One turn that calls four of the server's tools, one per model call. */
async function runThrough(transport: McpTransportConfig): Promise<Outcome> {
  const api = await startTestServer({ fallback: 'fail' });
  api.script(
    call('An image.', 'get-tiny-image', {}),
    call('Links.', 'get-resource-links', { count: 2 }),
    call('Weather.', 'get-structured-content', { location: 'Chicago' }),
    call('Echo.', 'echo', { message: 'hello from Trimline' }),
    { content: [{ type: 'text', text: 'Done.' }] },
  );
  const log: string[] = [];
  const source = new McpToolSource(
    [{ name: 'everything', transport, timeoutMs: 20_000, origin: 'test', secrets: [] }],
    { approve: async () => 'server', log: (l) => log.push(l) },
  );
  const loop = new AgentLoop({
    session: new Session(),
    workspace: new NodeWorkspace(os.tmpdir()),
    config: resolveAgentConfig({ baseURL: api.url, apiKey: 'test', retry: { maxRetries: 0 } }, {}),
    client: new Anthropic({ apiKey: 'test', baseURL: api.url, maxRetries: 0 }),
    externalTools: source,
  });
  try {
    await source.start();
    const r = await loop.run('Show me what the everything server can do.');
    expect(r.reason).toBe('end_turn');
    const posts = api.requests.filter((q) => q.path === '/v1/messages');
    const last = posts.at(-1)!.body as {
      tools: { name: string }[];
      messages: { role: string; content: { type: string; content: unknown; is_error?: boolean }[] }[];
    };
    const results = last.messages.flatMap((m) =>
      Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result') : [],
    );
    return {
      toolNames: last.tools.map((t) => t.name),
      results,
      invalid: posts.filter((q) => !q.validation.ok).length,
      log,
    };
  } finally {
    loop.close();
    await source.close();
    await api.close();
  }
}

function expectFaithful(o: Outcome): void {
  expect(o.invalid).toBe(0);
  expect(o.toolNames).toEqual(
    expect.arrayContaining([
      'mcp__everything__echo',
      'mcp__everything__get-tiny-image',
      'mcp__everything__get-resource-links',
      'mcp__everything__get-structured-content',
    ]),
  );
  expect(o.results).toHaveLength(4);
  const [image, links, weather, echo] = o.results;
  // The image reaches the model as an image block of the tool_result, between its texts.
  expect(image.content).toEqual([
    { type: 'text', text: expect.any(String) },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) } },
    { type: 'text', text: expect.any(String) },
  ]);
  // Resource links keep their URIs.
  expect(links.content).toMatch(/\[resource link\] .*: demo:\/\/resource\/dynamic\/(text|blob)\/1/);
  expect(links.content).toMatch(/\[resource link\] .*: demo:\/\/resource\/dynamic\/(text|blob)\/2/);
  expect(JSON.parse(weather.content as string)).toEqual({
    temperature: 36,
    conditions: 'Light rain / drizzle',
    humidity: 82,
  });
  expect(echo.content).toBe('Echo: hello from Trimline');
  for (const r of o.results) expect(r.is_error).toBeUndefined();
}

describe('server-everything through the loop', () => {
  it('over stdio', async () => {
    expectFaithful(
      await runThrough({ kind: 'stdio', command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], env: {} }),
    );
  });

  it('over Streamable HTTP', async () => {
    const port = await httpEverything('streamableHttp');
    expectFaithful(await runThrough({ kind: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {}, sse: false }));
  });

  it('over SSE, reached by falling back from Streamable HTTP', async () => {
    const port = await httpEverything('sse');
    const o = await runThrough({ kind: 'http', url: `http://127.0.0.1:${port}/sse`, headers: {}, sse: false });
    expectFaithful(o);
    expect(o.log.some((l) => /Streamable HTTP failed .*trying the SSE transport/.test(l))).toBe(true);
  });
});
