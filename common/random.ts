/**
 * The one seeded random generator (mulberry32): the same seed gives the same sequence on every machine, so what is
 * made from it can be made again. The demo seed's choices, its generated art, the fuzz suite's hostile requests and the
 * load test's users all draw from it. Not for secrets or ids (node:crypto is).
 *
 * Pure TypeScript without Node or DOM dependencies, like the other small helpers here; today only the server and
 * the tests use it.
 */

/** A generator of numbers in [0, 1). A string seed is hashed first (FNV-1a); a number is used as its low 32 bits. */
export function seededRandom(seed: string | number): () => number {
  let h = typeof seed === 'number' ? seed >>> 0 : hashString(seed);
  return () => {
    h = (h + 0x6d2b79f5) >>> 0;
    let t = h;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
