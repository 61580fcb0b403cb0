/**
 * Which proxied session an inspector shows: the one the user picked, else the most recently
 * active; and the list it picks from. A client session's other conversations (a subagent or
 * a side call under the same session key: another first message and another system prompt
 * or tool set) are listed under it; a later epoch of the same conversation (the client
 * rewrote its history, its system and tools as before) is listed on its own.
 */
import type { SessionEntry, SessionsResult } from '../../protocol/sessions';
import type { StatusFacts } from '../../protocol/status';
import { statusFromCalls } from '../status';
import { CLIENT_LABELS } from './client-kind';
import type { ProxyEngine, SessionState } from './proxy-engine';
import { titleOf } from './title';

export class SessionFollower {
  /** The session the user picked; undefined: follow the most recently active. */
  followed?: string;

  /** The state of the session shown now. */
  current(engine: ProxyEngine | undefined): SessionState | undefined {
    return (this.followed !== undefined ? engine?.state(this.followed) : undefined) ?? engine?.active();
  }

  /** Pick a session (undefined: follow the most recently active again); unknown ids are refused. */
  follow(engine: ProxyEngine | undefined, id: string | undefined): SessionsResult {
    if (id !== undefined && !engine?.state(id)) throw new Error(`no proxied session ${id}`);
    this.followed = id;
    return this.list(engine);
  }

  list(engine: ProxyEngine | undefined): SessionsResult {
    const all = engine ? [...engine.sessions.all()] : [];
    const byId = new Map(all.map((e) => [e.id, e]));
    const sessions: SessionEntry[] = all
      .map((e) => {
        const main = e.key !== undefined && e.epoch > 1 ? byId.get(e.key) : undefined;
        const child = main !== undefined && main.digests[0] !== e.digests[0] && !sameHead(main.session, e.session);
        return {
          id: e.id,
          title: titleOf(e),
          calls: e.session.calls.length,
          lastSeen: e.lastSeen,
          ...(child ? { parent: main.id } : {}),
          ...(e.client ? { client: CLIENT_LABELS[e.client] } : {}),
        };
      })
      .sort((a, b) => b.lastSeen - a.lastSeen);
    const shown = this.current(engine)?.entry.id;
    return {
      sessions,
      ...(this.followed !== undefined ? { followed: this.followed } : {}),
      ...(shown !== undefined ? { shown } : {}),
    };
  }
}

/** Same system prompt and tool definitions. */
function sameHead(a: { system?: unknown; tools?: unknown }, b: { system?: unknown; tools?: unknown }): boolean {
  return (
    JSON.stringify(a.system ?? null) === JSON.stringify(b.system ?? null) &&
    JSON.stringify(a.tools ?? null) === JSON.stringify(b.tools ?? null)
  );
}

/**
 * The status-line facts of the client session `key` (Claude Code's session id), or of the session
 * with that id: its main conversation (not a side call listed under it), most recently active
 * epoch first. Undefined when the proxy has not seen it.
 */
export function sessionStatus(engine: ProxyEngine, key: string): StatusFacts | undefined {
  const { sessions } = new SessionFollower().list(engine);
  const picked = sessions
    .filter((s) => s.id === key || engine.state(s.id)?.entry.key === key)
    .sort((a, b) => Number(a.parent !== undefined) - Number(b.parent !== undefined) || b.lastSeen - a.lastSeen)[0];
  const st = picked && engine.state(picked.id);
  return st ? statusFromCalls(st.inspector.calls(), st.engine.model, st.engine.savings().saved) : undefined;
}
