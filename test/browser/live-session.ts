/**
 * A live proxied session for the delta tests and the bench: requests shaped like an
 * agent's (a prompt, then rounds of text + tool_use and a tool_result) go through the
 * ProxyEngine as `POST /v1/messages` bodies, each answered with a usage, so the
 * inspector changes as it does behind `trimline proxy`: rows appended, the cached
 * prefix moving, token counts recalibrated.
 */
import { ProxyEngine } from '../../src/core/proxy/proxy-engine';
import type { LiveInspector } from '../../src/core/inspect/live';
import { startInspectorServer, type InspectorServer } from '../../src/host/standalone';

/** Characters per billed token in the synthetic usage (consistent, so calibration accepts it). */
const CHARS_PER_TOKEN = 3.4;

function round(i: number): object[] {
  const id = `toolu_${String(i).padStart(8, '0')}`;
  const name = i % 3 ? 'Read' : 'Bash';
  const input = i % 3 ? { file_path: `src/file${i % 400}.ts` } : { command: `npm test -- ${i}` };
  return [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${i}` },
        { type: 'tool_use', id, name, input },
      ],
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content: `line of output ${i}\n`.repeat(8 + (i % 20)) }],
    },
  ];
}

export class LiveProxySession {
  readonly engine = new ProxyEngine({ strategy: 'none' });
  private readonly messages: object[] = [{ role: 'user', content: 'Refactor the whole code base.' }];
  private rounds = 0;
  private calls = 0;

  /** A session of at least `blocks` blocks, sent as its first request (the proxy meets it mid-session). */
  constructor(blocks: number) {
    while (this.blocks() < blocks) this.messages.push(...round(this.rounds++));
    this.call();
  }

  blocks(): number {
    return 1 + 3 * this.rounds;
  }

  get inspector(): LiveInspector {
    const st = this.engine.active();
    if (!st) throw new Error('no session yet');
    return st.inspector;
  }

  /** The agent's next step: one more round (3 blocks) and a call with its usage. */
  step(): void {
    this.messages.push(...round(this.rounds++));
    this.call();
  }

  private call(): void {
    const body = { model: 'claude-sonnet-4-5', max_tokens: 4096, messages: this.messages };
    const raw = Buffer.from(JSON.stringify(body), 'utf8');
    const f = this.engine.onRequest(raw, {}, Date.now());
    this.engine.afterForward(f);
    const input = Math.round(raw.length / CHARS_PER_TOKEN);
    const cached = this.calls === 0 ? 0 : Math.round(input * 0.9);
    if (f.sessionId !== undefined && f.callIndex !== undefined) {
      this.engine.onResponse(f.sessionId, f.callIndex, {
        id: `msg_${this.calls}`,
        usage: {
          input_tokens: input - cached,
          cache_read_input_tokens: cached,
          cache_creation_input_tokens: 0,
          output_tokens: 50,
        },
      });
    }
    this.calls++;
  }
}

/** A live session of `blocks` blocks served to pages by the standalone server. */
export interface ServedLive {
  live: LiveProxySession;
  server: InspectorServer;
  close(): Promise<void>;
}

export async function serveLive(blocks: number): Promise<ServedLive> {
  const live = new LiveProxySession(blocks);
  const server = await startInspectorServer(
    { snapshot: () => live.inspector.snapshot(), handle: (r) => live.inspector.handle(r) },
    { root: process.cwd() },
  );
  return {
    live,
    server,
    close: async () => {
      await server.close();
      live.engine.close();
    },
  };
}
