/**
 * The workflow scenario of issue 11, played through the whole agent loop: the
 * real SDK client against the local API server (a scripted "model"), the
 * workflow fixture as a real stdio MCP server, and one trimming strategy.
 *
 * The scripted model reads the reference ids it passes back from the request
 * it answers, from tool results and Trimline's summaries only (not from its own earlier inputs): if trimming lost one,
 * it is recorded as
 * missing (and the call goes out with a placeholder the server refuses).
 */
import os from 'node:os';
import Anthropic from '@anthropic-ai/sdk';
import { AgentLoop } from '../../src/core/agent/loop';
import { resolveAgentConfig } from '../../src/core/agent/config';
import { NodeWorkspace } from '../../src/core/agent/node-workspace';
import { costOf } from '../../src/core/cache/cost';
import { McpToolSource } from '../../src/core/mcp/source';
import { Session } from '../../src/core/session/session';
import type { PipelineConfig } from '../../src/core/trimming';
import { totalInput, type CallUsage } from '../../src/core/session/types';
import { startTestServer } from '../../src/dev/server';
import type { IncomingCall, ScriptedTurn } from '../../src/dev/types';
import { workflowServer } from '../unit/mcp/helpers';

/** Records the scenario walks through (the fixture's PRIMARY). */
const RECORDS = 12;
/** Updates at the end, of the first records found (refs from the very first results). */
const UPDATES = 6;
export const MODEL = 'claude-sonnet-4-6';

interface WireBlock {
  readonly type: string;
  readonly text?: string;
  readonly content?: unknown;
}
interface WireMsg {
  readonly role: string;
  readonly content: string | readonly WireBlock[];
}

const pad = (n: number): string => String(n).padStart(4, '0');
const blocks = (m: WireMsg | undefined): readonly WireBlock[] =>
  !m ? [] : typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;

/**
 * The text of the request's tool results and text blocks (which hold Trimline's
 * summaries and digests): what servers said that is still in context. Tool
 * inputs are left out, so an id counts only if a result (or its summary) still has it.
 */
function resultsText(messages: readonly WireMsg[]): string {
  const out: string[] = [];
  for (const m of messages) {
    for (const b of blocks(m)) {
      if (b.type === 'text') out.push(b.text ?? '');
      if (b.type !== 'tool_result') continue;
      if (typeof b.content === 'string') out.push(b.content);
      else if (Array.isArray(b.content)) for (const c of b.content as WireBlock[]) out.push(c.text ?? '');
    }
  }
  return out.join('\n');
}

/** The step the conversation is at: 0 after the prompt, else the last assistant message's tag + 1. */
function stepOf(messages: readonly WireMsg[]): number {
  const prev = messages[messages.length - 2];
  const tag = blocks(prev)
    .map((b) => b.text ?? '')
    .join('\n')
    .match(/\[wf step (\d+)\]/);
  return tag ? Number(tag[1]) + 1 : 0;
}

export interface WorkflowRun {
  readonly calls: number;
  /** Total input tokens of each call (input + cache write + cache read). */
  readonly contextByCall: readonly number[];
  /** USD of input, cache writes and cache reads over the run. */
  readonly inputSideCost: number;
  readonly invalidRequests: number;
  /** Refs the model needed that were no longer in any tool result of its request. */
  readonly missingRefs: readonly string[];
  /** Refs looked up and found in context. */
  readonly refsUsed: number;
  readonly toolErrors: number;
  readonly decisions: readonly string[];
  readonly toolCalls: number;
}

/** The scripted model of the workflow: search, fetch each record, its linked record, its attachment, update some. */
function workflowModel(missing: string[], used: { n: number }): (call: IncomingCall) => ScriptedTurn {
  return (call) => {
    const messages = call.body.messages as readonly WireMsg[];
    const step = stepOf(messages);
    const context = resultsText(messages);
    const find = (re: RegExp, what: string): string => {
      const m = re.exec(context);
      if (!m) {
        missing.push(`step ${step}: ${what}`);
        return `MISSING-${what}`;
      }
      used.n++;
      return m[0];
    };
    const ref = (n: number): string => find(new RegExp(`WF-${pad(n)}-[0-9a-f]{4}`), `ref ${n}`);
    const say = (text: string, name: string, input: Record<string, unknown>): ScriptedTurn => ({
      content: [
        { type: 'text', text: `[wf step ${step}] ${text}` },
        { type: 'tool_use', name: `mcp__workflow__${name}`, input },
      ],
    });
    if (step === 0) return say('Searching the disputes.', 'search_records', { query: 'invoice disputes' });
    let i = step - 1;
    if (i < RECORDS) return say(`Reading record ${i + 1}.`, 'get_record', { ref_id: ref(i + 1) });
    i -= RECORDS;
    if (i < RECORDS)
      return say(`Reading the record linked from record ${i + 1}.`, 'get_record', { ref_id: ref(101 + i) });
    i -= RECORDS;
    if (i < RECORDS) {
      const uri = find(new RegExp(`workflow://records/WF-${pad(i + 1)}-[0-9a-f]{4}/attachment`), `attachment ${i + 1}`);
      return say(`Reading the attachment of record ${i + 1}.`, 'get_attachment', { uri });
    }
    i -= RECORDS;
    if (i < UPDATES)
      return say(`Noting the outcome on record ${i + 1}.`, 'update_record', {
        ref_id: ref(i + 1),
        note: `reviewed in step ${step}`,
      });
    return {
      content: [
        {
          type: 'text',
          text: `[wf step ${step}] Done: ${RECORDS} records, their links and attachments reviewed; ${UPDATES} updated.`,
        },
      ],
    };
  };
}

/** Tool calls of the whole scenario (one per model call, before the closing answer). */
export const WORKFLOW_TOOL_CALLS = 1 + 3 * RECORDS + UPDATES;

/** Run the scenario with one strategy; everything is started and stopped here. */
export async function runWorkflow(strategy: string, pipeline: PipelineConfig = {}): Promise<WorkflowRun> {
  const server = await startTestServer({ fallback: 'fail' });
  const missing: string[] = [];
  const used = { n: 0 };
  const play = workflowModel(missing, used);
  server.script(...Array.from({ length: WORKFLOW_TOOL_CALLS + 1 }, () => play));
  const source = new McpToolSource([workflowServer()], { approve: async () => 'server' });
  await source.start();
  const config = resolveAgentConfig(
    { model: MODEL, strategy, pipeline, baseURL: server.url, apiKey: 'test', retry: { maxRetries: 0 } },
    {},
  );
  const loop = new AgentLoop({
    session: new Session(),
    workspace: new NodeWorkspace(os.tmpdir()),
    config,
    client: new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 }),
    externalTools: source,
  });
  const decisions: string[] = [];
  let toolErrors = 0;
  loop.on('decision', (e) =>
    decisions.push(
      `call ${e.decision.callIndex}: ${e.decision.by} ${e.decision.action} (${e.decision.tokensSaved} saved): ${e.decision.reason}`,
    ),
  );
  loop.on('tool-result', (e) => (toolErrors += e.result.is_error ? 1 : 0));
  try {
    const result = await loop.run('Review the open invoice disputes in the workflow system.');
    const usages: CallUsage[] = loop.session.calls.map((c) => c.usage!);
    const inputSideCost = usages.reduce((sum, u) => {
      const c = costOf(u, MODEL, config.ttl);
      return sum + c.input + c.cacheWrite + c.cacheRead;
    }, 0);
    return {
      calls: result.calls,
      contextByCall: usages.map(totalInput),
      inputSideCost,
      invalidRequests: server.requests.filter((r) => r.path === '/v1/messages' && !r.validation.ok).length,
      missingRefs: missing,
      refsUsed: used.n,
      toolErrors,
      decisions,
      toolCalls: loop.session.messages.flatMap((m) => m.blocks).filter((b) => b.param.type === 'tool_use').length,
    };
  } finally {
    loop.close();
    await source.close();
    await server.close();
  }
}
