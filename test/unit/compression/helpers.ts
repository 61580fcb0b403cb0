/** Fixtures for the LLM compression tests: hand-made agent sessions, the local server with the real SDK client. */
import Anthropic from '@anthropic-ai/sdk';
import { RequestBuilder, validateRequest } from '../../../src/core/request';
import type { RequestBody } from '../../../src/core/api/wire';
import { blockText, Session, type ContentBlockParam } from '../../../src/core/session';
import type { TokenAccountant, TokenCount } from '../../../src/core/tokens/types';
import { MessageIndex, SdkSummarizer, type CompressionHost } from '../../../src/core/trimming';
import { startTestServer, type TestServer } from '../../../src/dev/server';
import type { MessagesBody, ScriptedTurn } from '../../../src/dev/types';

export const MODEL = 'claude-sonnet-4-5';
export const CHEAP_MODEL = 'claude-haiku-4-5';

/** One token per 4 characters: token numbers in reasons are predictable. */
export const charsAccountant: TokenAccountant = {
  block: (p: ContentBlockParam): TokenCount => ({
    tokens: Math.ceil(blockText(p).length / 4) + 3,
    quality: 'estimated',
  }),
  text: (t: string): TokenCount => ({ tokens: Math.ceil(t.length / 4), quality: 'estimated' }),
  raw: (t: string) => Math.ceil(t.length / 4),
};

export const filler = (tag: string, words = 60): string =>
  `${tag}: ${'lorem ipsum dolor sit amet '.repeat(words)}`.trim();

/**
 * A session whose message ids are m0, m1, … (position = number). Turns:
 *   prompt, then `rounds` tool rounds (assistant tool_use → user tool_result), then an answer.
 */
export class Builder {
  readonly session = new Session({ system: 'You are a coding agent.', model: MODEL });
  private tool = 0;

  private id(): string {
    return `m${this.session.messages.length}`;
  }
  prompt(text: string): number {
    this.session.append('user', text, {}, this.id());
    return this.session.messages.length - 1;
  }
  answer(text: string): number {
    this.session.append('assistant', [{ type: 'text', text }], {}, this.id());
    return this.session.messages.length - 1;
  }
  /** One tool round; returns the tool_use id. `pending` leaves it unanswered (a trailing tool call). */
  round(path: string, result = filler(`contents of ${path}`), pending = false): string {
    const id = `toolu_${String(this.tool++).padStart(4, '0')}`;
    this.session.append(
      'assistant',
      [
        { type: 'text', text: `Reading ${path}.` },
        { type: 'tool_use', id, name: 'read_file', input: { path } },
      ],
      {},
      this.id(),
    );
    if (!pending)
      this.session.append('user', [{ type: 'tool_result', tool_use_id: id, content: result }], {}, this.id());
    return id;
  }
  turn(prompt: string, paths: string[], answer: string): void {
    this.prompt(prompt);
    for (const p of paths) this.round(p);
    this.answer(answer);
  }
}

/** A host over a session with the chars accountant (what ContextEngine provides in the app). */
export function hostOf(session: Session, contextWindow = 200_000): CompressionHost & { index: MessageIndex } {
  return { index: new MessageIndex(session, charsAccountant), tokens: charsAccountant, contextWindow, model: MODEL };
}

const builder = new RequestBuilder();

/** The request the agent would send now; throws (RequestRefusedError) if it would break an API rule. */
export function requestOf(session: Session): RequestBody {
  return builder.build(session, { model: MODEL, maxTokens: 1024 }).body;
}

export function violations(session: Session): string[] {
  return validateRequest(requestOf(session), { model: MODEL }).map((v) => v.message);
}

export interface Server {
  server: TestServer;
  client: Anthropic;
  summarizer: SdkSummarizer;
  /** Bodies of the /v1/messages requests the server received. */
  bodies(): MessagesBody[];
  /** The text of the single user message of the i-th summarization request. */
  userText(i: number): string;
  close(): Promise<void>;
}

export async function startServer(summarizerModel?: string): Promise<Server> {
  const server = await startTestServer({ fallback: 'fail' });
  const client = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
  const summarizer = new SdkSummarizer(client, summarizerModel ? { model: summarizerModel } : {});
  const bodies = (): MessagesBody[] =>
    server.requests.filter((r) => r.path === '/v1/messages').map((r) => r.body as MessagesBody);
  return {
    server,
    client,
    summarizer,
    bodies,
    userText: (i) => {
      const m = bodies()[i].messages;
      const c = m[0].content;
      return typeof c === 'string' ? c : c.map((b) => String(b.text ?? '')).join('');
    },
    close: () => server.close(),
  };
}

export const reply = (text: string): ScriptedTurn => ({ content: [{ type: 'text', text }] });

/** Message numbers (`<message n="…">`) present in a transcript. */
export function transcriptPositions(text: string): number[] {
  return [...text.matchAll(/<message n="(\d+)"/g)].map((m) => Number(m[1]));
}
