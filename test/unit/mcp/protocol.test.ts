/** The protocol additions for MCP: an approval answer may approve the server for the session. */
import { describe, expect, it } from 'vitest';
import { parseWebviewMessage } from '../../../src/protocol';

const approve = (request: Record<string, unknown>): unknown => parseWebviewMessage({ type: 'request', id: 1, request: { op: 'approve', requestId: 'ap1', ...request } });

describe('approve with always', () => {
  it('carries always: true, drops always: false, refuses a non-boolean', () => {
    expect(approve({ approved: true, always: true })).toEqual({ type: 'request', id: 1, request: { op: 'approve', requestId: 'ap1', approved: true, always: true } });
    expect(approve({ approved: true, always: false })).toEqual({ type: 'request', id: 1, request: { op: 'approve', requestId: 'ap1', approved: true } });
    expect(approve({ approved: true })).toEqual({ type: 'request', id: 1, request: { op: 'approve', requestId: 'ap1', approved: true } });
    expect(approve({ approved: true, always: 'yes' })).toBeUndefined();
  });
});
