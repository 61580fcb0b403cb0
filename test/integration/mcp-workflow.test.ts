/**
 * Issue 11's scenario: 40+ calls to a workflow MCP server (a real stdio
 * process) whose results are 500–2,000 tokens with ref_ids later calls pass
 * back, through the whole loop against the local API server, `default` against `none`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runWorkflow, WORKFLOW_TOOL_CALLS, type WorkflowRun } from './mcp-workflow';

/** The 40th model call (index 39): the point the issue measures. */
const CALL_40 = 39;
/**
 * What `default` achieves here, as measured (deterministic: the server's usage
 * comes from its cache simulator): context at call 40 35.7% of none's, input-side
 * cost 72.4%. Issue 11 aims at 25% and 60%; `default` misses both because its
 * cache-aware applier defers every summary (a batch must save ≥ 90% of the cached
 * tokens it rewrites, and the verbatim last rounds sit inside that span) until the
 * 40k-token window cuts at call 27. With minBatchFraction 0.7 the same run gives
 * 10.4% and 59.8% (README, "MCP servers"). The bounds below hold the measured
 * result, so a regression shows.
 */
const CONTEXT_BOUND = 0.4;
const COST_BOUND = 0.75;
/** Issue 11's aims: context at call 40 ≤ 25% of none's; input-side cost ≤ 60% of none's. */
const CONTEXT_AIM = 0.25;
const COST_AIM = 0.6;
/** The cache-aware batch threshold under which this scenario meets the aims (measured: 0.5 and below cost more than they save). */
const TUNED_BATCH_FRACTION = 0.7;

let none: WorkflowRun;
let dflt: WorkflowRun;

beforeAll(async () => {
  none = await runWorkflow('none');
  dflt = await runWorkflow('default');
  const ratio = (a: number, b: number): string => `${((100 * a) / b).toFixed(1)}%`;
  console.log(
    [
      `workflow scenario: ${dflt.toolCalls} MCP tool calls, ${dflt.calls} model calls`,
      `context at call 40: default ${dflt.contextByCall[CALL_40]} tokens, none ${none.contextByCall[CALL_40]} (${ratio(dflt.contextByCall[CALL_40], none.contextByCall[CALL_40])})`,
      `input-side cost: default $${dflt.inputSideCost.toFixed(4)}, none $${none.inputSideCost.toFixed(4)} (${ratio(dflt.inputSideCost, none.inputSideCost)})`,
      `refs passed back: ${dflt.refsUsed}, missing ${dflt.missingRefs.length}`,
      `default's decisions: ${dflt.decisions.length}`,
      ...dflt.decisions.filter((d) => !/cache-aware defer/.test(d)).slice(0, 10),
    ].join('\n'),
  );
}, 240_000);

describe('MCP workflow through the whole loop', () => {
  it('makes every call with none and default, with 0 invalid requests and no tool errors', () => {
    for (const run of [none, dflt]) {
      expect(run.toolCalls).toBe(WORKFLOW_TOOL_CALLS);
      expect(run.toolCalls).toBeGreaterThanOrEqual(40);
      expect(run.calls).toBe(WORKFLOW_TOOL_CALLS + 1);
      expect(run.invalidRequests).toBe(0);
      expect(run.toolErrors).toBe(0);
    }
  });

  it('with default, every ref_id and URI a later call passes back is still in context when it is used', () => {
    expect(dflt.missingRefs).toEqual([]);
    expect(dflt.refsUsed).toBe(WORKFLOW_TOOL_CALLS - 1);
  });

  it('with default, the context at call 40 and the input-side cost stay at their measured shares of none', () => {
    expect(dflt.contextByCall[CALL_40]).toBeLessThanOrEqual(CONTEXT_BOUND * none.contextByCall[CALL_40]);
    expect(dflt.inputSideCost).toBeLessThanOrEqual(COST_BOUND * none.inputSideCost);
    // The one cut that explains call 40: the 40k window, applied regardless of the cache.
    expect(dflt.decisions.some((d) => /atomic-window apply .*window over budget/.test(d))).toBe(true);
  });

  it('with default tuned to batch cache rewrites at 70% (minBatchFraction 0.7), the issue\'s aims are met', async () => {
    const tuned = await runWorkflow('default', { cacheAware: {} });
    expect(tuned.missingRefs).toEqual([]);
    expect(tuned.invalidRequests).toBe(0);
    expect(tuned.contextByCall[CALL_40]).toBeLessThanOrEqual(CONTEXT_AIM * none.contextByCall[CALL_40]);
    expect(tuned.inputSideCost).toBeLessThanOrEqual(COST_AIM * none.inputSideCost);
  });
});
