import { describe, expect, it } from 'vitest';
import { createListing, emptyListing, listingsHeld } from '../../src/lib/stores/listing.js';

/**
 * Default (node) environment: this is what a server render of LoadMoreList does. The module-level set of listings
 * exists to reset the browser's lists on sign-out; a server render must not leave its listing in it, or the process
 * would keep every list it ever rendered.
 */
describe('listings created during server renders', () => {
  it('are not held after the render', () => {
    const before = listingsHeld();
    for (let i = 0; i < 500; i++) {
      const listing = createListing(async () => ({ items: [], total: 0 }), { limit: 12 }, { items: [{ _id: String(i) }], total: 1 });
      expect(listing.store.get().items).toEqual([{ _id: String(i) }]);
    }
    expect(listingsHeld()).toBe(before);
    expect(emptyListing().items).toEqual([]);
  });
});
