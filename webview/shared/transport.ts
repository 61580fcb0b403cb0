/**
 * The webview's only channel to its host, whichever host it is: VS Code
 * (`acquireVsCodeApi().postMessage` / `message` events) or the standalone server
 * (`POST api/request` answered with host messages, `GET api/events` server-sent events
 * for pushed snapshots). Requests carry ids and resolve with their one `response`.
 * The standalone page is opened at the address its server printed, `…/?token=…`: the
 * token is read from there once and sent with every call (a header on fetches, the
 * `token` parameter of the event stream, which cannot carry headers).
 * Every incoming message is checked with `parseHostMessage` before use.
 */
import { TOKEN_HEADER, TOKEN_PARAM } from '../../src/protocol/access';
import {
  parseHostMessage,
  type HostMessage,
  type RequestOp,
  type RequestResults,
  type WebviewMessage,
  type WebviewRequest,
} from '../../src/protocol';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare global {
  interface Window {
    acquireVsCodeApi?: () => VsCodeApi;
  }
}

export type ConnectionState = 'connecting' | 'open' | 'lost';

export interface Transport {
  readonly kind: 'vscode' | 'standalone';
  /** Listen, connect and announce `ready`; `onMessage` gets every snapshot/chat/theme message. */
  start(onMessage: (m: HostMessage) => void, onConnection?: (s: ConnectionState) => void): void;
  request<K extends RequestOp>(req: Extract<WebviewRequest, { op: K }>): Promise<RequestResults[K]>;
  /** Ask the host for a whole snapshot again (a delta did not fit what the webview has). */
  resync(): void;
  loadState<T>(): T | undefined;
  saveState(state: unknown): void;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/** Ids, pending requests and dispatch, common to both transports. */
abstract class BaseTransport implements Transport {
  abstract readonly kind: 'vscode' | 'standalone';
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  protected onMessage: (m: HostMessage) => void = () => undefined;
  protected onConnection: (s: ConnectionState) => void = () => undefined;

  protected abstract post(msg: WebviewMessage): void;
  protected abstract connect(): void;
  abstract loadState<T>(): T | undefined;
  abstract saveState(state: unknown): void;

  start(onMessage: (m: HostMessage) => void, onConnection?: (s: ConnectionState) => void): void {
    this.onMessage = onMessage;
    if (onConnection) this.onConnection = onConnection;
    this.connect();
  }

  /** Route one raw incoming message: responses settle their request, the rest go to the app. */
  protected dispatch(raw: unknown): void {
    const msg = parseHostMessage(raw);
    if (!msg) return;
    if (msg.type !== 'response') {
      this.onMessage(msg);
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new Error(msg.error));
  }

  /** Fail every open request (the connection is gone). */
  protected failAll(reason: string): void {
    for (const p of this.pending.values()) p.reject(new Error(reason));
    this.pending.clear();
  }

  resync(): void {
    this.post({ type: 'ready' });
  }

  request<K extends RequestOp>(req: Extract<WebviewRequest, { op: K }>): Promise<RequestResults[K]> {
    const id = this.nextId++;
    return new Promise<RequestResults[K]>((resolve, reject) => {
      // The host answers with the result type of this op (see RequestResults in the protocol).
      this.pending.set(id, { resolve: (v) => resolve(v as RequestResults[K]), reject });
      this.post({ type: 'request', id, request: req });
    });
  }
}

class VsCodeTransport extends BaseTransport {
  readonly kind = 'vscode';
  constructor(private readonly api: VsCodeApi) {
    super();
  }
  protected post(msg: WebviewMessage): void {
    this.api.postMessage(msg);
  }
  protected connect(): void {
    window.addEventListener('message', (ev: MessageEvent<unknown>) => this.dispatch(ev.data));
    this.onConnection('open');
    this.post({ type: 'ready' });
  }
  loadState<T>(): T | undefined {
    return (this.api.getState() as T | null) ?? undefined;
  }
  saveState(state: unknown): void {
    this.api.setState(state);
  }
}

const STATE_KEY = 'trimline.inspector.state';

/** A random id naming this page's event stream to the server (so `ready` is answered on that stream, in order). */
function clientId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

class HttpTransport extends BaseTransport {
  readonly kind = 'standalone';
  private readonly base = new URL('.', location.href);
  private readonly client = clientId();
  private readonly token = new URLSearchParams(location.search).get(TOKEN_PARAM) ?? '';

  private api(path: string, withToken = false): URL {
    const url = new URL(path, this.base);
    url.searchParams.set('client', this.client);
    if (withToken) url.searchParams.set(TOKEN_PARAM, this.token);
    return url;
  }

  protected post(msg: WebviewMessage): void {
    const headers = { 'Content-Type': 'application/json', [TOKEN_HEADER]: this.token };
    fetch(this.api('api/request'), { method: 'POST', headers, body: JSON.stringify(msg) })
      .then(async (res) => {
        if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
        const replies: unknown = await res.json();
        if (Array.isArray(replies)) for (const r of replies) this.dispatch(r);
      })
      .catch((e: unknown) => {
        if (msg.type === 'request')
          this.dispatch({
            type: 'response',
            id: msg.id,
            ok: false,
            error: `the inspector server did not answer: ${(e as Error).message}`,
          });
      });
  }

  protected connect(): void {
    this.onConnection('connecting');
    // Snapshots and deltas arrive on this stream only, in order (the reply to `ready` too).
    const events = new EventSource(this.api('api/events', true));
    events.onmessage = (ev: MessageEvent<string>) => {
      try {
        this.dispatch(JSON.parse(ev.data));
      } catch {
        // not JSON: ignored, like any other malformed message
      }
    };
    // (Re)connected: announce ready, so the host sends the current snapshot.
    events.onopen = () => {
      this.onConnection('open');
      this.post({ type: 'ready' });
    };
    events.onerror = () => this.onConnection(events.readyState === EventSource.CLOSED ? 'lost' : 'connecting');
  }

  loadState<T>(): T | undefined {
    try {
      const s = sessionStorage.getItem(STATE_KEY);
      return s ? (JSON.parse(s) as T) : undefined;
    } catch {
      return undefined;
    }
  }
  saveState(state: unknown): void {
    try {
      sessionStorage.setItem(STATE_KEY, JSON.stringify(state));
    } catch {
      // storage full or disabled: UI state is a convenience
    }
  }
}

/** The transport for wherever the webview runs. */
export function createTransport(): Transport {
  return typeof window.acquireVsCodeApi === 'function'
    ? new VsCodeTransport(window.acquireVsCodeApi())
    : new HttpTransport();
}
