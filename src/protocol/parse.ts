/**
 * Checks of every message as it arrives: the webview checks the host's messages
 * (parseHostMessage), the hosts check the webviews' (parseWebviewMessage). The types are
 * in messages.ts; deltas are checked by delta-guards.ts.
 */
import { isRevision, isSnapshotDelta } from './delta-guards';
import { parseInspectorOpRequest } from './inspector-ops';
import {
  INSPECTOR_ACTIONS,
  type HostMessage,
  type InspectorAction,
  type WebviewMessage,
  type WebviewRequest,
} from './messages';

function isInspectorAction(v: unknown): v is InspectorAction {
  return typeof v === 'string' && (INSPECTOR_ACTIONS as readonly string[]).includes(v);
}

const HOST_TYPES: ReadonlySet<string> = new Set([
  'snapshot',
  'snapshotDelta',
  'empty',
  'response',
  'chat',
  'theme',
  'mcp',
]);

/**
 * Shallow check of a message from the host (the webview's side of validation): the
 * envelope and the fields the webview dereferences first. Content is rendered as text.
 */
export function parseHostMessage(v: unknown): HostMessage | undefined {
  if (!isObj(v) || typeof v.type !== 'string' || !HOST_TYPES.has(v.type)) return undefined;
  switch (v.type) {
    case 'snapshot': {
      const s = v.snapshot;
      return isObj(s) &&
        Array.isArray(s.rows) &&
        Array.isArray(s.calls) &&
        Array.isArray(s.findings) &&
        isObj(s.totals) &&
        isObj(s.cost) &&
        isObj(s.cache) &&
        (v.revision === undefined || isRevision(v.revision))
        ? (v as HostMessage)
        : undefined;
    }
    case 'snapshotDelta':
      return isSnapshotDelta(v.delta) ? (v as HostMessage) : undefined;
    case 'empty': {
      // Known actions only, each once: the webview draws one button per entry.
      const a = v.actions;
      return Array.isArray(a) && a.every(isInspectorAction) && new Set(a).size === a.length
        ? { type: 'empty', actions: [...a] }
        : undefined;
    }
    case 'response':
      return typeof v.id === 'number' && typeof v.ok === 'boolean' && (v.ok || typeof v.error === 'string')
        ? (v as HostMessage)
        : undefined;
    case 'chat':
      return isObj(v.event) && typeof v.event.kind === 'string' ? (v as HostMessage) : undefined;
    case 'mcp':
      return isObj(v.info) && Array.isArray(v.info.servers) ? (v as HostMessage) : undefined;
    default:
      return v.kind === 'light' || v.kind === 'dark' || v.kind === 'high-contrast' ? (v as HostMessage) : undefined;
  }
}

const MAX_TEXT = 200_000;
const MAX_ID = 256;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function str(v: unknown, max = MAX_ID): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= max;
}

/** Validate a request from a webview; returns undefined for anything malformed. */
export function parseWebviewMessage(v: unknown): WebviewMessage | undefined {
  if (!isObj(v)) return undefined;
  if (v.type === 'ready') return { type: 'ready' };
  if (v.type !== 'request' || typeof v.id !== 'number' || !Number.isSafeInteger(v.id) || !isObj(v.request))
    return undefined;
  const r = v.request;
  const ok = (request: WebviewRequest): WebviewMessage => ({ type: 'request', id: v.id as number, request });
  switch (r.op) {
    case 'pin':
    case 'unpin':
    case 'restore':
      return str(r.blockId) ? ok({ op: r.op, blockId: r.blockId }) : undefined;
    case 'trim':
      if (!str(r.blockId)) return undefined;
      if (r.text !== undefined && (typeof r.text !== 'string' || r.text.length > MAX_TEXT)) return undefined;
      return ok({ op: 'trim', blockId: r.blockId, text: r.text === '' ? undefined : (r.text as string | undefined) });
    case 'originals':
      return str(r.overlayId) ? ok({ op: 'originals', overlayId: r.overlayId }) : undefined;
    case 'diff':
      if (r.call !== undefined && !(typeof r.call === 'number' && Number.isSafeInteger(r.call) && r.call >= 0))
        return undefined;
      return ok({ op: 'diff', call: r.call as number | undefined });
    case 'setStrategy':
      return str(r.spec, 1000) ? ok({ op: 'setStrategy', spec: r.spec }) : undefined;
    case 'send':
      return str(r.text, MAX_TEXT) ? ok({ op: 'send', text: r.text }) : undefined;
    case 'approve':
      if (
        !str(r.requestId) ||
        typeof r.approved !== 'boolean' ||
        (r.always !== undefined && typeof r.always !== 'boolean')
      )
        return undefined;
      return ok({ op: 'approve', requestId: r.requestId, approved: r.approved, ...(r.always ? { always: true } : {}) });
    case 'showDiff':
      return str(r.requestId) ? ok({ op: 'showDiff', requestId: r.requestId }) : undefined;
    case 'runAction':
      return isInspectorAction(r.action) ? ok({ op: 'runAction', action: r.action }) : undefined;
    case 'mcpSwitch':
      if (
        !str(r.server) ||
        (r.tool !== undefined && !str(r.tool)) ||
        typeof r.enabled !== 'boolean' ||
        typeof r.now !== 'boolean'
      )
        return undefined;
      return ok({
        op: 'mcpSwitch',
        server: r.server,
        ...(r.tool !== undefined ? { tool: r.tool as string } : {}),
        enabled: r.enabled,
        now: r.now,
      });
    case 'compact':
    case 'mcpApply':
    case 'stop':
    case 'newChat':
    case 'retry':
    case 'openInspector':
    case 'resume':
    case 'setApiKey':
      return ok({ op: r.op });
    default: {
      const extra = parseInspectorOpRequest(r);
      return extra ? ok(extra) : undefined;
    }
  }
}
