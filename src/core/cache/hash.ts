/**
 * Content hashing for the cache simulator: 64-bit state in two 32-bit lanes
 * (cyrb53-style mixing). Collisions over a session of a few million prefixes
 * are vanishingly unlikely.
 */

const SEED_A = 0x9e3779b1;
const SEED_B = 0x85ebca77;

function finalize(h1: number, h2: number): [number, number] {
  let a = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  a ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  let b = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  b ^= Math.imul(a ^ (a >>> 13), 3266489909);
  return [a >>> 0, b >>> 0];
}

export function hashString(s: string): [number, number] {
  let h1 = SEED_A ^ s.length;
  let h2 = SEED_B ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  return finalize(h1, h2);
}

/** Chain step: prefix hash (a,b) extended by a block hash (c,d) and a small tag. */
export function chain(a: number, b: number, c: number, d: number, tag: number): [number, number] {
  let h1 = Math.imul(a ^ c, 2654435761) ^ tag;
  let h2 = Math.imul(b ^ d, 1597334677) ^ Math.imul(tag, 0x27d4eb2d);
  h1 = Math.imul(h1 ^ (d >>> 7), 0x165667b1);
  h2 = Math.imul(h2 ^ (c >>> 11), 0x61c88647);
  return finalize(h1, h2);
}
