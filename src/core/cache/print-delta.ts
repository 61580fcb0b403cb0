/**
 * Request fingerprints (fingerprint.ts) in the journal, so a restarted proxy judges the next
 * call against the request sent before the restart. A fingerprint holds one digest per
 * message: writing it whole with every call would grow a journal quadratically, so each
 * verdict record carries it delta-encoded against the previous one journaled for the same
 * lineage in the same file: `keep` leading messages (digests and roles) unchanged plus the
 * new tail, the same for the client's messages (left out when they equal the sent ones),
 * and the model, tools and system only when they changed. `base` names the session call of
 * the print it applies to; a record without a base is a full print (the first of a lineage
 * a journal writer writes). `check` is a digest of the whole folded print, so a delta folded
 * onto a wrong base (a record lost, a corrupt line) is recognized and ignored, never used.
 *
 * Folding is in place (each record costs its tail, not the history), and the check is
 * verified only for the print that is asked for.
 */
import { createHash } from 'node:crypto';
import type { RequestFingerprint, ToolPrint } from './fingerprint';

export type { RequestFingerprint } from './fingerprint';

export interface PrintDelta {
  /** Session call of the previous print of the lineage in this file; absent: a full print. */
  readonly base?: number;
  /** Leading sent messages (digest and role) unchanged from the base. */
  readonly keep: number;
  readonly messages: readonly string[];
  readonly roles: readonly string[];
  /**
   * Leading client messages unchanged from the base's; absent (with `clientMessages`): the client's equal the sent
   * ones.
   */
  readonly keepClient?: number;
  readonly clientMessages?: readonly string[];
  /** Present when changed from the base (always in a full print). */
  readonly model?: string;
  readonly tools?: readonly ToolPrint[];
  readonly system?: readonly string[];
  readonly ttlMs?: number;
  readonly at: number;
  /** Digest of the whole print this delta folds to. */
  readonly check: string;
}

function checkOf(p: Omit<RequestFingerprint, 'ttlMs' | 'at'>): string {
  const json = JSON.stringify([
    p.model,
    p.tools.map((t) => [t.name, t.hash]),
    p.system,
    p.messages,
    p.roles,
    p.clientMessages,
  ]);
  return createHash('sha1').update(json).digest('base64').slice(0, 16);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function commonPrefix(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** `print` as a delta against `prev` (the previous print journaled for its lineage; undefined: a full print). */
export function encodePrint(
  print: RequestFingerprint,
  prev?: { readonly call: number; readonly print: RequestFingerprint },
): PrintDelta {
  const p = prev?.print;
  const keep = p ? Math.min(commonPrefix(p.messages, print.messages), commonPrefix(p.roles, print.roles)) : 0;
  const sameClient = sameList(print.clientMessages, print.messages);
  const keepClient = p && !sameClient ? commonPrefix(p.clientMessages, print.clientMessages) : 0;
  return {
    ...(prev ? { base: prev.call } : {}),
    keep,
    messages: print.messages.slice(keep),
    roles: print.roles.slice(keep),
    ...(sameClient ? {} : { keepClient, clientMessages: print.clientMessages.slice(keepClient) }),
    ...(!p || p.model !== print.model ? { model: print.model } : {}),
    ...(!p ||
    !sameList(
      p.tools.map((t) => `${t.name}\u0000${t.hash}`),
      print.tools.map((t) => `${t.name}\u0000${t.hash}`),
    )
      ? { tools: print.tools }
      : {}),
    ...(!p || !sameList(p.system, print.system) ? { system: print.system } : {}),
    ...(print.ttlMs !== undefined ? { ttlMs: print.ttlMs } : {}),
    at: print.at,
    check: checkOf(print),
  };
}

/** The writer's side: the last print journaled per lineage, so each record is a delta against it. */
export class PrintEncoder {
  private readonly last = new Map<string, { readonly call: number; readonly print: RequestFingerprint }>();

  /** The delta of a call's print (and it becomes the lineage's base: call it only for a record that is written). */
  encode(lineage: string, call: number, print: RequestFingerprint): PrintDelta {
    const delta = encodePrint(print, this.last.get(lineage));
    this.last.set(lineage, { call, print });
    return delta;
  }
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** Whether a journaled value has the shape of a PrintDelta (consistency with its base is the folder's job). */
export function isPrintDelta(v: unknown): v is PrintDelta {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const d = v as Record<string, unknown>;
  if (d.base !== undefined && !isCount(d.base)) return false;
  if (!isCount(d.keep) || !isStrings(d.messages) || !isStrings(d.roles) || d.messages.length !== d.roles.length)
    return false;
  if ((d.keepClient === undefined) !== (d.clientMessages === undefined)) return false;
  if (d.keepClient !== undefined && (!isCount(d.keepClient) || !isStrings(d.clientMessages))) return false;
  if (d.model !== undefined && typeof d.model !== 'string') return false;
  if (d.system !== undefined && !isStrings(d.system)) return false;
  if (
    d.tools !== undefined &&
    !(
      Array.isArray(d.tools) &&
      d.tools.every(
        (t) =>
          typeof t === 'object' &&
          t !== null &&
          typeof (t as ToolPrint).name === 'string' &&
          typeof (t as ToolPrint).hash === 'string',
      )
    )
  )
    return false;
  if (d.ttlMs !== undefined && !(typeof d.ttlMs === 'number' && d.ttlMs > 0 && Number.isFinite(d.ttlMs))) return false;
  return typeof d.at === 'number' && Number.isFinite(d.at) && typeof d.check === 'string';
}

interface Folded {
  call: number;
  model: string;
  tools: readonly ToolPrint[];
  system: readonly string[];
  messages: string[];
  roles: string[];
  /** Undefined: the client's messages are the sent ones. */
  client: string[] | undefined;
  ttlMs: number | undefined;
  at: number;
  check: string;
}

/** The reader's side: deltas folded back, in file order, per lineage. */
export class PrintFolder {
  private readonly state = new Map<string, Folded>();

  /**
   * The next verdict record of `lineage` (call `call`); no delta, or one that does not fit its base, breaks the chain.
   */
  fold(lineage: string, call: number, delta: PrintDelta | undefined): void {
    const next = delta && this.apply(this.state.get(lineage), call, delta);
    if (next) this.state.set(lineage, next);
    else this.state.delete(lineage);
  }

  /** The lineage's last folded print, if its chain is whole and it matches its check. */
  print(lineage: string): { readonly call: number; readonly print: RequestFingerprint } | undefined {
    const f = this.state.get(lineage);
    if (!f) return undefined;
    const print: RequestFingerprint = {
      model: f.model,
      tools: f.tools,
      system: f.system,
      messages: f.messages,
      roles: f.roles,
      clientMessages: f.client ?? f.messages,
      ttlMs: f.ttlMs,
      at: f.at,
    };
    return checkOf(print) === f.check
      ? {
          call: f.call,
          print: {
            ...print,
            messages: [...f.messages],
            roles: [...f.roles],
            clientMessages: [...(f.client ?? f.messages)],
          },
        }
      : undefined;
  }

  private apply(prev: Folded | undefined, call: number, d: PrintDelta): Folded | undefined {
    const full = d.base === undefined;
    if (full ? d.keep !== 0 || (d.keepClient ?? 0) !== 0 : !prev || prev.call !== d.base) return undefined;
    const base = full ? undefined : prev;
    const model = d.model ?? base?.model;
    const tools = d.tools ?? base?.tools;
    const system = d.system ?? base?.system;
    if (model === undefined || tools === undefined || system === undefined) return undefined;
    const baseMessages = base?.messages ?? [];
    const baseClient = base?.client ?? baseMessages;
    if (d.keep > baseMessages.length || (d.keepClient ?? 0) > baseClient.length) return undefined;
    // The client's list first: when it was the sent list, it is read before that one changes.
    let client: string[] | undefined;
    if (d.clientMessages !== undefined) {
      client = base?.client ?? baseClient.slice(0, d.keepClient);
      client.length = d.keepClient ?? 0;
      client.push(...d.clientMessages);
    }
    const messages = baseMessages;
    const roles = base?.roles ?? [];
    messages.length = d.keep;
    roles.length = d.keep;
    messages.push(...d.messages);
    roles.push(...d.roles);
    return { call, model, tools, system, messages, roles, client, ttlMs: d.ttlMs, at: d.at, check: d.check };
  }
}
