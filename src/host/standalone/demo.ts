/**
 * `npm start` / `trimline demo`: a live agent session a new user can watch without any
 * account. The local Anthropic-compatible server plays a deterministic exploring model
 * (or, with ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL set, the real endpoint is used), the
 * real agent loop works in a copy of a small sample project, and the same inspector as
 * in VS Code shows every request live on 127.0.0.1, with pin / trim / restore applied
 * to the next call. After the scripted prompts the inspector takes more prompts itself
 * (its prompt box), so a pin or trim shows its effect on a real next call. The copy of
 * the project is removed on close.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentLoop, NodeWorkspace, openAgentSession, resolveAgentConfig } from '../../core/agent';
import { strategyNames } from '../../core/trimming';
import { startTestServer, type TestServer } from '../../dev/server';
import type { InspectorSnapshot, WebviewRequest } from '../../protocol';
import { LiveInspector } from '../../core/inspect/live';
import { findRoot, startInspectorServer, type InspectorServer } from './server';

/** What the demo asks, in order: each prompt is one agent turn of several calls. */
export const DEMO_PROMPTS: readonly string[] = [
  'How does the cart compute its total? Look at src/cart.js and src/pricing.js.',
  'Where are bulk discounts applied? Check src/pricing.js and test/cart.test.js.',
  'What does logs/build.log say about failures?',
  // The build log's 10k tokens leave the next turn's requests: the trim pays back over its calls.
  'Which test covers the EU tax rate? Check test/cart.test.js and src/pricing.js.',
];

/** Lines of each answer echoed to the terminal (the inspector has the rest). */
const MAX_ANSWER_LINES = 8;
/** Pause between turns so a watcher can follow along (the model is instant offline). */
const TURN_PAUSE_MS = 1500;

export interface DemoOptions {
  port?: number;
  strategy?: string;
  /** Don't pause between turns (tests). */
  fast?: boolean;
  log?: (line: string) => void;
}

export interface Demo {
  readonly url: string;
  readonly workspace: string;
  readonly loop: AgentLoop;
  readonly inspector: LiveInspector;
  /** Resolves when every demo prompt has been answered. */
  readonly done: Promise<void>;
  /** The turn of the last prompt sent from the inspector, if any (tests wait for it). */
  readonly lastTurn: () => Promise<void> | undefined;
  close(): Promise<void>;
}

export async function startDemo(o: DemoOptions = {}): Promise<Demo> {
  const log = o.log ?? ((l: string) => process.stdout.write(`${l}\n`));
  const online = Boolean(process.env.ANTHROPIC_API_KEY || process.env.ANTHROPIC_BASE_URL);
  const model: TestServer | undefined = online ? undefined : await startTestServer({ fallback: 'demo' });
  const workspace = mkdtempSync(join(tmpdir(), 'trimline-demo-'));
  cpSync(join(findRoot(), 'test', 'fixtures', 'demo-project'), workspace, { recursive: true });
  const strategy = o.strategy ?? 'default';
  const handle = openAgentSession({ dir: join(workspace, '.trimline', 'sessions') });
  const config = resolveAgentConfig(model ? { baseURL: model.url, apiKey: 'offline-demo', strategy } : { strategy });
  const loop = new AgentLoop({
    session: handle.session,
    workspace: new NodeWorkspace(workspace, { trusted: true, allowExec: false }),
    config,
    journal: handle.journal,
  });
  const inspector = new LiveInspector(loop.engine, {
    sessionId: handle.sessionId,
    title: () => {
      const first = handle.session.messages.find((m) => m.role === 'user')?.blocks[0];
      return `Demo: ${first?.param.type === 'text' ? DEMO_PROMPTS[0] : 'new session'}`;
    },
    strategy,
    strategies: ['default', 'none', ...strategyNames()],
    onVerdict: (v) => handle.journal.recordVerdict(`agent:${handle.sessionId}`, v),
  });
  let server: InspectorServer | undefined = undefined;
  const push = (): void => {
    inspector.invalidate();
    server?.broadcast();
  };
  loop.on('call-start', (e) => {
    inspector.onCallStart(e);
    server?.broadcast();
  });
  loop.on('usage', (e) => {
    if (e.kind === 'call') inspector.onUsage(e.callIndex, e.usage);
    push();
  });
  loop.on('message', (e) => {
    push();
    const m = e.message;
    if (m.role !== 'assistant') return;
    for (const b of m.blocks) if (b.param.type === 'text') log(indent(b.param.text));
  });
  loop.on('tool-result', (e) => log(`  ${e.result.is_error ? '✗' : '✓'} ${e.name}`));
  loop.on('error', (e) => log(`  error: ${e.error.message}`));
  log(
    `Trimline demo: ${model ? 'offline model (local Anthropic-compatible server)' : 'your ANTHROPIC endpoint'}, ` +
      `strategy ${strategy}`,
  );
  log(`Workspace: ${workspace}`);
  // The inspector needs a first prompt in the session to draw a request: serve once it is there.
  let firstMessage!: () => void;
  const ready = new Promise<void>((res) => (firstMessage = res));
  const off = loop.on('message', () => firstMessage());
  let scripted = true;
  const done = (async () => {
    for (const prompt of DEMO_PROMPTS) {
      log(`\n> ${prompt}`);
      const r = await loop.run(prompt);
      if (r.error) {
        log(`  stopped: ${r.error.message}`);
        break;
      }
      if (!o.fast) await new Promise((res) => setTimeout(res, TURN_PAUSE_MS));
    }
    const t = loop.ledger.session;
    log(
      `\nDone: ${handle.session.calls.length} calls, $${t.cost.toFixed(4)} (${t.cacheReadTokens} tokens read ` +
        'from the cache). The inspector stays open: pin or trim something, then send another prompt from it; ' +
        'Ctrl+C to stop.',
    );
    scripted = false;
  })();
  // Prompts from the inspector, once the scripted ones are done: one turn at a time.
  let turn: Promise<void> | undefined;
  const prompt = (text: string): void => {
    if (scripted || loop.running) throw new Error('The demo is still working on a prompt: wait until it is done.');
    log(`\n> ${text}  (from the inspector)`);
    for (const m of inspector.applyDeferredIfCold(Date.now())) log(`  deferred action applied on a cold cache: ${m}`);
    turn = loop.run(text).then(
      (r) => {
        if (r.error) log(`  stopped: ${r.error.message}`);
        const t = loop.ledger.session;
        log(`  ${handle.session.calls.length} calls so far, $${t.cost.toFixed(4)}`);
      },
      (e: unknown) => log(`  error: ${e instanceof Error ? e.message : String(e)}`),
    );
  };
  await Promise.race([ready, done]);
  off();
  server = await startInspectorServer(
    {
      // Undefined until the session has a request: the page shows its empty state (no actions).
      snapshot: (): InspectorSnapshot | undefined => inspector.snapshot(),
      handle: (req: WebviewRequest) => {
        if (req.op === 'canPrompt')
          return {
            placeholder:
              'Ask the demo agent something else (after pinning or trimming, to see the effect on its next call)',
          };
        if (req.op === 'send') return prompt(req.text);
        return inspector.handle(req);
      },
    },
    {
      port: o.port,
      mutates: (r) => !['originals', 'diff', 'price', 'sessions', 'head', 'canPrompt', 'send'].includes(r.op),
    },
  );
  log(`Inspector: ${server.pageUrl}  (open it in a browser)`);
  return {
    url: server.pageUrl,
    workspace,
    loop,
    inspector,
    done,
    lastTurn: () => turn,
    async close() {
      loop.cancel();
      await done.catch(() => undefined);
      await turn?.catch(() => undefined);
      loop.close();
      await server?.close();
      await model?.close();
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

function indent(text: string): string {
  const lines = text.trim().split('\n');
  const shown = lines.slice(0, MAX_ANSWER_LINES).map((l) => `  ${l}`);
  if (lines.length > MAX_ANSWER_LINES)
    shown.push(`  … (${lines.length - MAX_ANSWER_LINES} more lines in the inspector)`);
  return shown.join('\n');
}
