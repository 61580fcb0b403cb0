/**
 * What each recorded call's request was built from besides its messages: its model, the client version
 * that built its system prompt, the system TTL, and the tool results the client had cleared (microcompact).
 */
import type { ImportedSession } from '../session/types';
import type { ClientEvents } from '../import/client-events';
import { clearedAt, type ClearedSpan } from './sizing';
import type { CallContext } from './session-bill';
import type { CallTiming } from './call-timings';
import { SYSTEM_READ_SLACK_TOKENS } from './invalidations';

/**
 * Microcompact boundaries as cleared spans: from the first response after the boundary, the named
 * tool results and the named attachments the importer holds as blocks (`attachmentBlocks`). A cleared
 * attachment counts as a cleared result's placeholder (sizing.ts `CLEARED_RESULT_TOKENS`); how Claude Code
 * marks it is not recorded, and a few tokens either way do not move the fit.
 */
export function clearedSpans(imp: ImportedSession, events: ClientEvents | undefined): ClearedSpan[] {
  if (!events?.microcompacts.length) return [];
  const byTool = new Map<string, string>();
  for (const m of imp.messages)
    for (const b of m.blocks) if (b.param.type === 'tool_result') byTool.set(b.param.tool_use_id, b.id);
  const out: ClearedSpan[] = [];
  for (const mc of events.microcompacts) {
    const fromCall = mc.firstResponseId ? imp.calls.findIndex((c) => c.apiMessageId === mc.firstResponseId) : -1;
    if (fromCall < 0) continue;
    const results = mc.toolIds.map((t) => byTool.get(t)).filter((x): x is string => x !== undefined);
    const attachments = mc.attachmentUuids
      .map((u) => imp.attachmentBlocks?.get(u))
      .filter((x): x is string => x !== undefined);
    const blockIds = new Set([...results, ...attachments]);
    if (blockIds.size || mc.attachmentUuids.length)
      out.push({
        fromCall,
        blockIds,
        results: new Set(results).size,
        attachments: mc.attachmentUuids.length,
        attachmentsFollowed: new Set(attachments).size,
      });
  }
  return out.sort((a, b) => a.fromCall - b.fromCall);
}

/**
 * Per call: model, client version (carried forward where a line has none), system TTL, cleared
 * results (one set object per span count). A version change counts as a new system prompt only
 * where the recording shows it: the call read nothing past the system prompt (older clients did
 * not stamp their version into it).
 */
export function callContexts(
  imp: ImportedSession,
  model: string,
  timings: readonly CallTiming[],
  events: ClientEvents | undefined,
  spans: readonly ClearedSpan[],
  systemOf: (model: string) => number,
): CallContext[] {
  let version: string | undefined;
  let active = -1;
  let set: ReadonlySet<string> | undefined;
  return imp.calls.map((c, i) => {
    const m = c.model ?? model;
    const v = c.apiMessageId ? events?.versionOf.get(c.apiMessageId) : undefined;
    if (v && v !== version) {
      const read = c.usage?.cache_read_input_tokens ?? 0;
      if (version === undefined || !c.usage || read <= systemOf(m) + SYSTEM_READ_SLACK_TOKENS) version = v;
    }
    const n = spans.filter((s) => s.fromCall <= i).length;
    if (n !== active) [active, set] = [n, clearedAt(spans, i)];
    return { model: m, prefixKey: version, systemTtl: timings[i].systemTtl, cleared: set };
  });
}
