/**
 * Cache verdicts of the calls Trimline's own agent sends (the chat, the demo): each request
 * as the loop prepared it, compared with the one before (cache/verdict.ts). Every change to
 * the messages is Trimline's here (the agent is the client), so a changed message is a
 * `trimline_edit`. Proxied sessions get theirs from the proxy, which sees the client's bytes.
 */
import type { CallVerdict } from '../../protocol/verdicts';
import { fingerprintRequest, type RequestFingerprint } from '../cache/fingerprint';
import { cacheVerdict } from '../cache/verdict';
import type { RequestBody } from '../api/wire';
import type { CallUsage } from '../session/types';

export class OwnVerdicts {
  private sending?: { callIndex: number; print: RequestFingerprint };
  private last?: { print: RequestFingerprint; usage: CallUsage };
  private readonly memo = new WeakMap<object, string>();

  /** A call is being sent with this body. */
  onSend(callIndex: number, body: RequestBody, now: number): void {
    // The agent's messages are its own: the "client's" are the log's, which only ever grows.
    const print = fingerprintRequest(body, now, { memo: this.memo });
    this.sending = { callIndex, print: { ...print, clientMessages: this.last?.print.clientMessages ?? [] } };
  }

  /** Its usage arrived: the verdict (undefined for a call not seen being sent). */
  onUsage(callIndex: number, usage: CallUsage): CallVerdict | undefined {
    const s = this.sending;
    if (!s || s.callIndex !== callIndex) return undefined;
    this.sending = undefined;
    const verdict = cacheVerdict({
      call: callIndex,
      sessionCall: callIndex,
      current: s.print,
      previous: this.last,
      usage,
    });
    this.last = { print: s.print, usage };
    return verdict;
  }
}
