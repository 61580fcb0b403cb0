/**
 * Issue 11's scenario: 40+ calls to a workflow MCP server (a real stdio
 * process) whose results are 500–2,000 tokens with ref_ids later calls pass
 * back, through the whole loop against the local API server, `default` against `none`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runWorkflow, WORKFLOW_TOOL_CALLS, type WorkflowRun } from './mcp-workflow';

/** The 40th model call (index 39): the point the issue measures. */
const CALL_40 = 39;
/** Issue 11's aims: context at call 40 ≤ 25% of none's; input-side cost ≤ 60% of none's. */
const CONTEXT_AIM = 0.25;
const COST_AIM = 0.6;

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

  it("with the default configuration, the issue's aims are met: context at call 40 and input-side cost", () => {
    expect(dflt.contextByCall[CALL_40]).toBeLessThanOrEqual(CONTEXT_AIM * none.contextByCall[CALL_40]);
    expect(dflt.inputSideCost).toBeLessThanOrEqual(COST_AIM * none.inputSideCost);
    // Summaries applied inside the cached prefix say why they paid (the break-even's numbers).
    expect(dflt.decisions.some((d) => /break-even .* expected warm calls → pays/.test(d))).toBe(true);
  });
});
