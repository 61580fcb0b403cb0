import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_COMMAND_TIMEOUT_S, executeTool, MAX_COMMAND_OUTPUT_BYTES } from '../../../src/core/agent/tools';
import { formatExecResult } from '../../../src/core/agent/tools/run-command';
import { makeContext, makeTempDir, removeDir } from './helpers';

let root: string;
beforeEach(() => {
  root = makeTempDir({ 'hello.txt': 'hi\n' });
});
afterEach(() => removeDir(root));

describe('run_command', () => {
  it('runs in the workspace root after approval, with the exit code', async () => {
    const ctx = makeContext(root);
    const r = await executeTool('run_command', { command: 'cat hello.txt && echo err >&2' }, ctx);
    expect(r).toEqual({ is_error: false, content: 'hi\nerr\n[exit code 0]' });
    expect(ctx.approvals).toEqual([
      {
        tool: 'run_command',
        command: 'cat hello.txt && echo err >&2',
        cwd: root,
        timeoutMs: DEFAULT_COMMAND_TIMEOUT_S * 1000,
      },
    ]);
  });

  it('reports a non-zero exit code as information, not a tool error', async () => {
    const r = await executeTool('run_command', { command: 'exit 3' }, makeContext(root));
    expect(r).toEqual({ is_error: false, content: '(no output)\n[exit code 3]' });
  });

  it('does not run when the user denies', async () => {
    const ctx = makeContext(root, { allow: false });
    const r = await executeTool('run_command', { command: 'touch ran.txt' }, ctx);
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(/^denied by user/);
    expect(ctx.approvals).toHaveLength(1);
    const check = await executeTool('run_command', { command: 'ls' }, makeContext(root));
    expect(check.content).not.toContain('ran.txt');
  });

  it('is refused in an untrusted workspace, without asking', async () => {
    const ctx = makeContext(root, { workspace: { trusted: false } });
    const r = await executeTool('run_command', { command: 'echo hi' }, ctx);
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(/not trusted \(VS Code Workspace Trust/);
    expect(ctx.approvals).toHaveLength(0);
  });

  it('is unavailable when the workspace cannot run commands', async () => {
    const ctx = makeContext(root, { workspace: { allowExec: false } });
    const r = await executeTool('run_command', { command: 'echo hi' }, ctx);
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(/not available here/);
    expect(ctx.approvals).toHaveLength(0);
  });

  it('kills the whole process group on timeout', async () => {
    // A process left running would hold the call past the test's timeout; the note says it was killed.
    const r = await executeTool(
      'run_command',
      { command: 'echo started; sleep 30; echo never', timeout_s: 1 },
      makeContext(root),
    );
    expect(r.is_error).toBe(true);
    expect(r.content).toBe(
      'started\n[timed out after 1 s; the process was killed. Pass a larger timeout_s (max 600) if it needs longer.]',
    );
  });

  it('returns when the shell exits even if a background job keeps the pipes open', async () => {
    // The background job outlives the test's timeout: waiting for it would fail the test.
    const r = await executeTool('run_command', { command: 'sleep 30 & echo launched' }, makeContext(root));
    expect(r).toEqual({ is_error: false, content: 'launched\n[exit code 0]' });
  });

  it('caps output, keeping head and tail with a note', async () => {
    const r = await executeTool('run_command', { command: 'seq 1 100000' }, makeContext(root));
    expect(r.is_error).toBe(false);
    expect(r.content.startsWith('1\n2\n3\n')).toBe(true);
    expect(r.content.endsWith('99999\n100000\n[exit code 0]')).toBe(true);
    expect(r.content).toMatch(/\[… [\d,]+ bytes of output omitted \(output capped at 30,000 bytes/);
    expect(Buffer.byteLength(r.content)).toBeLessThan(MAX_COMMAND_OUTPUT_BYTES + 500);
  });

  it('strips ANSI color codes', async () => {
    const r = await executeTool('run_command', { command: "printf '\\033[31mred\\033[0m\\n'" }, makeContext(root));
    expect(r.content).toBe('red\n[exit code 0]');
  });

  it('is cancelled (and killed) by the abort signal', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const r = await executeTool('run_command', { command: 'sleep 30' }, makeContext(root, { signal: ac.signal }));
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(/cancelled/);
  });

  it('validates timeout_s against its bounds', async () => {
    const r = await executeTool('run_command', { command: 'true', timeout_s: 601 }, makeContext(root));
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(/`timeout_s` must be ≤ 600, got 601/);
  });
});

describe('formatExecResult', () => {
  it('words signals and cancellation', () => {
    const base = { head: 'x', tail: '', omittedBytes: 0, timedOut: false, aborted: false };
    expect(formatExecResult({ ...base, exitCode: null, signal: 'SIGSEGV' }, 5)).toBe('x\n[killed by signal SIGSEGV]');
    expect(formatExecResult({ ...base, exitCode: null, signal: 'SIGTERM', aborted: true }, 5)).toBe(
      'x\n[cancelled by the user; the process was killed]',
    );
  });
});
