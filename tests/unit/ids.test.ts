import { describe, expect, it } from 'vitest';
import { newId } from '../../server/db/ids.js';

const UUID7_HEX = /^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/;

describe('newId', () => {
  it('lays an id out as a UUIDv7 in hex, its time first', () => {
    const at = Date.UTC(2026, 10, 29);
    const id = newId(at);
    expect(id).toMatch(UUID7_HEX);
    expect(parseInt(id.slice(0, 12), 16)).toBe(at);
  });

  it('sorts ids made in the same millisecond in the order they were made', () => {
    const at = Date.now();
    const ids = Array.from({ length: 50 }, () => newId(at));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(50);
    for (const id of ids) expect(id).toMatch(UUID7_HEX);
  });

  it('starts each millisecond from a fresh random point', () => {
    const at = Date.now();
    const tails = new Set(Array.from({ length: 20 }, (_, i) => newId(at + 1000 + i).slice(12)));
    expect(tails.size).toBe(20);
    expect(newId(at - 5) < newId(at)).toBe(true);
  });
});
