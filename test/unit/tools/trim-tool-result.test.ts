import { beforeEach, describe, expect, it } from 'vitest';
import { AGENT_TRIM_MARKER, executeTool } from '../../../src/core/agent/tools';
import { NodeWorkspace } from '../../../src/core/agent/node-workspace';
import { Session } from '../../../src/core/session';
import { makeContext } from './helpers';

const BIG = Array.from({ length: 200 }, (_, i) => `${i + 1}\tsome long line of file content number ${i + 1}`).join(
  '\n',
);

let session: Session;
let resultPos: number;

/** prompt → read_file call → its (big) result → a call batch that includes trim_tool_result. */
beforeEach(() => {
  session = new Session();
  session.append('user', 'Look at src/big.ts');
  session.append('assistant', [
    { type: 'tool_use', id: 'toolu_read', name: 'read_file', input: { path: 'src/big.ts' } },
  ]);
  resultPos = session.append('user', [{ type: 'tool_result', tool_use_id: 'toolu_read', content: BIG }]).seq;
  session.append('assistant', [
    { type: 'text', text: 'Done with that file.' },
    { type: 'tool_use', id: 'toolu_trim', name: 'trim_tool_result', input: {} },
  ]);
});

function ctx(callIndex = 4) {
  return makeContext(new NodeWorkspace('/nonexistent-root-for-trim', { allowExec: false }), { session, callIndex });
}

describe('trim_tool_result', () => {
  it('adds an agent trim overlay; the view shows the summary; restore gives back the exact original', async () => {
    const original = structuredClone(session.resolveMessage(resultPos).blocks[0].sent);
    const summary = 'src/big.ts: 200 lines of filler.\nNothing relevant to the bug.';
    const r = await executeTool('trim_tool_result', { tool_use_id: 'toolu_read', summary }, ctx());
    expect(r.is_error).toBe(false);
    expect(r.content).toMatch(
      /^Trimmed the result of toolu_read \(read_file\): ~\d+ → ~\d+ tokens\. The original stays in the log; the user can restore it\.$/,
    );

    const [overlay] = session.allOverlays();
    const text = `${AGENT_TRIM_MARKER}\n${summary}`;
    expect(overlay).toMatchObject({
      kind: 'trim',
      author: 'agent',
      reason: 'agent: src/big.ts: 200 lines of filler.',
      callIndex: 4,
      blockId: session.toolResultBlockId('toolu_read'),
      text,
      tokensBefore: Math.ceil(BIG.length / 4),
      tokensAfter: Math.ceil(text.length / 4),
    });
    const view = session.resolveMessage(resultPos).blocks[0];
    expect(view.state).toBe('trimmed');
    expect(view.sent).toEqual({ type: 'tool_result', tool_use_id: 'toolu_read', content: text });
    // The log itself is untouched.
    expect(session.messages[resultPos].blocks[0].param).toEqual(original);

    session.restore(overlay.kind === 'trim' ? overlay.blockId : '', 'user');
    const restored = session.resolveMessage(resultPos).blocks[0];
    expect(restored.state).toBe('verbatim');
    expect(JSON.stringify(restored.sent)).toBe(JSON.stringify(original));
  });

  it("re-trimming replaces the agent's previous summary", async () => {
    await executeTool('trim_tool_result', { tool_use_id: 'toolu_read', summary: 'first' }, ctx());
    await executeTool('trim_tool_result', { tool_use_id: 'toolu_read', summary: 'second' }, ctx());
    const overlays = session.allOverlays();
    expect(overlays).toHaveLength(1);
    expect(overlays[0].reason).toBe('agent: second');
  });

  it('refuses unknown ids, listing recent results', async () => {
    const r = await executeTool('trim_tool_result', { tool_use_id: 'toolu_nope', summary: 's' }, ctx());
    expect(r.is_error).toBe(true);
    expect(r.content).toBe(
      'no tool result with tool_use_id "toolu_nope" in this conversation. Recent results: toolu_read (read_file).',
    );
  });

  it('refuses a result pinned by the user (pins win)', async () => {
    session.addOverlay({
      kind: 'pin',
      blockId: session.toolResultBlockId('toolu_read')!,
      author: 'user',
      reason: 'keep',
      callIndex: 1,
      tokensBefore: 0,
      tokensAfter: 0,
    });
    const r = await executeTool('trim_tool_result', { tool_use_id: 'toolu_read', summary: 's' }, ctx());
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(/pinned by the user/);
    expect(session.allOverlays().filter((o) => o.kind === 'trim')).toHaveLength(0);
  });

  it('refuses a result of its own current batch', async () => {
    const r = await executeTool('trim_tool_result', { tool_use_id: 'toolu_trim', summary: 's' }, ctx());
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(/being executed right now/);
  });

  it('refuses a summary that is not shorter than the result', async () => {
    const r = await executeTool('trim_tool_result', { tool_use_id: 'toolu_read', summary: BIG + BIG }, ctx());
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(/not shorter than the result/);
    expect(session.allOverlays()).toHaveLength(0);
  });

  it('works in an untrusted workspace (it only changes the view)', async () => {
    const c = makeContext(new NodeWorkspace('/x', { trusted: false }), { session, callIndex: 4 });
    expect((await executeTool('trim_tool_result', { tool_use_id: 'toolu_read', summary: 'short' }, c)).is_error).toBe(
      false,
    );
  });
});
