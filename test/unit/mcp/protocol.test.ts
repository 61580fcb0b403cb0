/** The protocol additions for MCP: an approval answer may approve the server for the session. */
import { describe, expect, it } from 'vitest';
import { parseHostMessage, parseWebviewMessage } from '../../../src/protocol';

const approve = (request: Record<string, unknown>): unknown =>
  parseWebviewMessage({ type: 'request', id: 1, request: { op: 'approve', requestId: 'ap1', ...request } });

describe('approve with always', () => {
  it('carries always: true, drops always: false, refuses a non-boolean', () => {
    expect(approve({ approved: true, always: true })).toEqual({
      type: 'request',
      id: 1,
      request: { op: 'approve', requestId: 'ap1', approved: true, always: true },
    });
    expect(approve({ approved: true, always: false })).toEqual({
      type: 'request',
      id: 1,
      request: { op: 'approve', requestId: 'ap1', approved: true },
    });
    expect(approve({ approved: true })).toEqual({
      type: 'request',
      id: 1,
      request: { op: 'approve', requestId: 'ap1', approved: true },
    });
    expect(approve({ approved: true, always: 'yes' })).toBeUndefined();
  });
});

describe('MCP inspector messages', () => {
  it('accepts mcpSwitch for a server or a tool, and mcpApply; refuses malformed switches', () => {
    const req = (request: Record<string, unknown>): unknown => parseWebviewMessage({ type: 'request', id: 2, request });
    expect(req({ op: 'mcpSwitch', server: 'everything', tool: 'echo', enabled: false, now: false })).toEqual({
      type: 'request',
      id: 2,
      request: { op: 'mcpSwitch', server: 'everything', tool: 'echo', enabled: false, now: false },
    });
    expect(req({ op: 'mcpSwitch', server: 'everything', enabled: true, now: true })).toEqual({
      type: 'request',
      id: 2,
      request: { op: 'mcpSwitch', server: 'everything', enabled: true, now: true },
    });
    expect(req({ op: 'mcpApply' })).toEqual({ type: 'request', id: 2, request: { op: 'mcpApply' } });
    expect(req({ op: 'mcpSwitch', server: '', enabled: true, now: true })).toBeUndefined();
    expect(req({ op: 'mcpSwitch', server: 's', enabled: 'no', now: true })).toBeUndefined();
    expect(req({ op: 'mcpSwitch', server: 's', enabled: true })).toBeUndefined();
  });

  it('the host message carries the servers', () => {
    const info = { servers: [], toolsTokens: 10 };
    expect(parseHostMessage({ type: 'mcp', info })).toEqual({ type: 'mcp', info });
    expect(parseHostMessage({ type: 'mcp', info: {} })).toBeUndefined();
  });
});
