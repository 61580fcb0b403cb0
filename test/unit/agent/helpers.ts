/** Fixtures for the agent loop tests: a temp workspace, the local server, a loop on the real SDK client. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import {
  AgentLoop,
  NodeWorkspace,
  resolveAgentConfig,
  type AgentConfigInput,
  type AgentEvent,
  type ApprovalRequest,
  type RetryPolicy,
} from '../../../src/core/agent';
import { Session } from '../../../src/core/session';
import type { Journal } from '../../../src/core/store';
import { startTestServer, type TestServer } from '../../../src/dev/server';
import type { TestServerOptions } from '../../../src/dev/server';

/** Retries without real waiting (no jitter, so delays are exact). */
export const FAST_RETRY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 5,
  maxDelayMs: 20,
  maxRetryAfterMs: 2_000,
  jitter: 0,
};

export function tempWorkspace(files: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-agent-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

export interface Harness {
  readonly server: TestServer;
  readonly dir: string;
  readonly session: Session;
  readonly loop: AgentLoop;
  readonly events: AgentEvent[];
  /** Requests to /v1/messages, in order. */
  messagesRequests(): TestServer['requests'];
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly server?: TestServerOptions;
  readonly config?: AgentConfigInput;
  readonly files?: Record<string, string>;
  readonly approve?: (r: ApprovalRequest) => Promise<boolean>;
  readonly session?: Session;
  readonly journal?: Journal;
  readonly apiKey?: string;
}

export async function harness(o: HarnessOptions = {}): Promise<Harness> {
  const server = await startTestServer({ fallback: 'fail', ...o.server });
  const dir = tempWorkspace(o.files);
  const session = o.session ?? new Session();
  const config = resolveAgentConfig(
    { apiKey: o.apiKey ?? 'test-key', baseURL: server.url, retry: FAST_RETRY, ...o.config },
    {},
  );
  const loop = new AgentLoop({
    session,
    workspace: new NodeWorkspace(dir),
    config,
    approve: o.approve,
    journal: o.journal,
  });
  const events: AgentEvent[] = [];
  loop.onAny((e) => events.push(e));
  return {
    server,
    dir,
    session,
    loop,
    events,
    messagesRequests: () => server.requests.filter((r) => r.path === '/v1/messages'),
    close: async () => {
      loop.close();
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every request the server validated was accepted (faults are injected before validation and do not count). */
export function expectAllValid(server: TestServer): void {
  const bad = server.requests.filter((r) => !r.validation.ok).map((r) => `#${r.seq}: ${r.validation.message}`);
  expect(bad).toEqual([]);
}

/** The API-level invariants of a session: every tool_use answered exactly once in the next message, results first. */
export function expectPaired(session: Session): void {
  const msgs = session.messages;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (m.role !== 'assistant' || m.meta.interrupted) continue;
    const uses = m.blocks.filter((b) => b.kind === 'tool_use').map((b) => b.toolUseId);
    if (!uses.length) continue;
    const next = msgs[i + 1];
    expect(next?.role, `message ${i} has tool calls: the next must be the user's results`).toBe('user');
    const results = next.blocks.filter((b) => b.kind === 'tool_result').map((b) => b.toolUseId);
    expect(results).toEqual(uses);
    const firstOther = next.blocks.findIndex((b) => b.kind !== 'tool_result');
    if (firstOther >= 0) expect(firstOther).toBeGreaterThanOrEqual(results.length);
  }
}

export function eventsOf<T extends AgentEvent['type']>(
  events: readonly AgentEvent[],
  type: T,
): Extract<AgentEvent, { type: T }>[] {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

/** Text of a request message (string or blocks). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: string; content?: unknown }) =>
      b.type === 'text' ? b.text : b.type === 'tool_result' ? textOf(b.content) : '',
    )
    .join('\n');
}
