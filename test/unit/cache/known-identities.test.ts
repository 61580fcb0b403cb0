/**
 * A huge block's cache identity made elsewhere (the proxy's worker, issue 27) is taken for any copy of the block
 * with the same huge text and the same rest (the inspector rebuilds the request with breakpoints), never for a block
 * that differs.
 */
import { describe, expect, it } from 'vitest';
import { hashString } from '../../../src/core/cache/hash';
import { BlockIdentities, rememberBlockIdentity } from '../../../src/core/cache/sim-identity';
import { blockJson } from '../../../src/core/cache/sim-blocks';
import type { SimBlock } from '../../../src/core/cache/sim-types';
import { sendBody } from '../../../src/core/proxy/prework';

const huge = 'x'.repeat(70_000);
const result = (id: string, extra: object = {}): SimBlock =>
  ({ type: 'tool_result', tool_use_id: id, content: huge, ...extra }) as SimBlock;

describe('remembered block identities', () => {
  it('a copy with a breakpoint takes the remembered identity; another block is hashed', () => {
    rememberBlockIdentity(result('t1'), [1, 2]);
    const ids = new BlockIdentities();
    expect(ids.of(result('t1', { cache_control: { type: 'ephemeral' } }))).toEqual([1, 2]);
    expect(ids.of(result('t2'))).toEqual(hashString(blockJson(result('t2'))));
    expect(ids.of(result('t1', { is_error: true }))).not.toEqual([1, 2]);
  });

  it('a block holding the mark itself is not taken for another', () => {
    const marked = result('t3', { is_error: '\u0000huge' });
    rememberBlockIdentity(result('t3', { is_error: huge }), [3, 4]);
    expect(new BlockIdentities().of(marked)).toEqual(hashString(blockJson(marked)));
  });

  it('the worker gives the identity the simulator would compute, for huge blocks only', () => {
    const body = {
      model: 'm',
      messages: [{ role: 'user' as const, content: [result('t4'), { type: 'text' as const, text: 'small' }] }],
    };
    expect(sendBody(body as never, []).identities).toEqual([
      { message: 0, block: 0, hash: hashString(blockJson(result('t4'))) },
    ]);
  });
});
