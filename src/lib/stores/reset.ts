/**
 * docs/product.md, Browser state: one reset action returns every store to its start state: every store registers how to go
 * back to its initial state, and `resetAll()` runs them all.
 */
type Reset = () => void;
const resets = new Map<string, Reset>();

/** Register (or replace) the reset of the store called `name`. */
export function registerReset(name: string, reset: Reset): void {
  resets.set(name, reset);
}

export function resetAll(): void {
  for (const reset of resets.values()) reset();
}
