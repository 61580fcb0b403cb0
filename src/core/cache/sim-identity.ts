/**
 * What identifies a prefix position for the cache simulator (simulator.ts): a block's content
 * hash, the model the chain starts from, and the boundary before the messages (tool_choice,
 * thinking settings, images, and an epoch bumped when the client changed something the
 * requests do not show). Each is hashed once per object, model or setting.
 */
import { hashString } from './hash';
import { blockJson } from './sim-blocks';
import type { SimBlock, SimMessage } from './sim-types';

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
      h = hashString(blockJson(block));
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
