/**
 * What identifies a prefix position for the cache simulator (simulator.ts): a block's content
 * hash, the model the chain starts from, and the boundary before the messages (tool_choice,
 * thinking settings, images, and an epoch bumped when the client changed something the
 * requests do not show). Each is hashed once per object, model or setting.
 */
import { hashString } from './hash';
import { blockIdentity } from '../api/cache-rules';
import { blockJson } from './sim-blocks';
import type { SimBlock, SimMessage } from './sim-types';

/**
 * Identities of huge blocks hashed elsewhere (the proxy's worker thread), by their huge text: a copy of the block
 * (the inspector rebuilds the request, breakpoints and all) finds it when the rest of it is the same.
 */
const known = new Map<string, { readonly rest: string; readonly hash: [number, number] }[]>();
let knownChars = 0;
const KNOWN_MIN_CHARS = 64 * 1024;
const KNOWN_MAX_CHARS = 64 * 1024 * 1024;
const MARK = '\u0000huge';

/** The block's huge text (a text block's, a tool result's string content), if it has one. */
function hugeTextOf(block: object): string | undefined {
  const b = block as { text?: unknown; content?: unknown };
  const text = typeof b.text === 'string' ? b.text : typeof b.content === 'string' ? b.content : undefined;
  return text !== undefined && text.length >= KNOWN_MIN_CHARS ? text : undefined;
}

/** The block's identity JSON with its huge text marked; undefined when it holds the mark itself (ambiguous). */
function restOf(block: object, text: string): string | undefined {
  let marked = 0;
  const rest = JSON.stringify(blockIdentity(block), (_k, v: unknown) => {
    if (v !== text) return v;
    marked++;
    return MARK;
  });
  return rest.split(JSON.stringify(MARK)).length - 1 === marked ? rest : undefined;
}

/** A huge block's identity (`hashString(blockJson(block))`) made off the event loop: no session hashes it again. */
export function rememberBlockIdentity(block: object, hash: [number, number]): void {
  const text = hugeTextOf(block);
  const rest = text === undefined ? undefined : restOf(block, text);
  if (text === undefined || rest === undefined) return;
  const list = known.get(text) ?? [];
  if (!known.has(text)) knownChars += text.length;
  known.delete(text);
  known.set(text, [...list.filter((e) => e.rest !== rest), { rest, hash }].slice(-4));
  for (const old of known.keys()) {
    if (knownChars <= KNOWN_MAX_CHARS || old === text) break;
    known.delete(old);
    knownChars -= old.length;
  }
}

function knownIdentity(block: object): [number, number] | undefined {
  const text = hugeTextOf(block);
  const list = text === undefined ? undefined : known.get(text);
  const rest = list && restOf(block, text!);
  return rest === undefined ? undefined : list!.find((e) => e.rest === rest)?.hash;
}

export class BlockIdentities {
  private readonly blockHashes = new WeakMap<object, [number, number]>();
  private readonly modelHashes = new Map<string, [number, number]>();
  private readonly plainBoundaries = new Map<number, [number, number]>();
  private readonly normalized = new WeakMap<object, readonly SimBlock[]>();
  /** Part of every message prefix's key (see CacheSimulator.invalidateMessages). */
  private messageEpoch = 0;

  /** From now on message prefixes are new ones; tools and system keep their identity. */
  newMessageEpoch(): void {
    this.messageEpoch++;
  }

  /** The chain's start for a model, hashed once per model. */
  model(model: string): [number, number] {
    return this.modelHashes.get(model) ?? this.modelHashes.set(model, hashString(`model:${model}`)).get(model)!;
  }

  /**
   * The message boundary's hash (tool_choice, thinking, images, epoch); without settings, once per epoch and images.
   */
  boundary(toolChoice: unknown, thinking: unknown, images: boolean): [number, number] {
    const hash = (): [number, number] => hashString(JSON.stringify([toolChoice, thinking, images, this.messageEpoch]));
    if (toolChoice !== null || thinking !== null) return hash();
    const k = this.messageEpoch * 2 + (images ? 1 : 0);
    return this.plainBoundaries.get(k) ?? this.plainBoundaries.set(k, hash()).get(k)!;
  }

  /** `copy` is `original` with only its own cache_control changed: the same identity, without serializing it. */
  share(copy: SimBlock, original: SimBlock): void {
    this.blockHashes.set(copy, this.of(original));
  }

  /** A block's content identity, hashed once per object. */
  of(block: SimBlock): [number, number] {
    let h = this.blockHashes.get(block);
    if (!h) {
      h = knownIdentity(block) ?? hashString(blockJson(block));
      this.blockHashes.set(block, h);
    }
    return h;
  }

  /** Message content as blocks; string content becomes one text block (memoized per message object). */
  blocksOf(msg: SimMessage): readonly SimBlock[] {
    if (typeof msg.content !== 'string') return msg.content;
    let blocks = this.normalized.get(msg);
    if (!blocks) {
      blocks = msg.content.length > 0 ? [{ type: 'text', text: msg.content } as SimBlock] : [];
      this.normalized.set(msg, blocks);
    }
    return blocks;
  }
}
