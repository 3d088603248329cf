// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from 'vitest';
import {
  addToCart, cart, cartTotal, CART_STORAGE_KEY, clearCart, isInCart, MAX_QUANTITY, removeFromCart, sanitizeCart, updateCartQuantity,
} from '../../src/lib/stores/cart.js';
import { resetAll } from '../../src/lib/stores/reset.js';

const stored = () => JSON.parse(localStorage.getItem(CART_STORAGE_KEY) ?? 'null');

beforeEach(() => {
  localStorage.clear();
  clearCart();
});

describe('cart store', () => {
  it('starts empty', () => {
    expect(cart.get()).toEqual({ total: 0, items: [] });
  });

  it('add: quantity defaults to 1; total is the sum of quantities; persisted under "cart"', () => {
    expect(addToCart({ _id: 'a' })).toBe(true);
    expect(addToCart({ _id: 'b', quantity: 3, name: 'Mug', price: 1500 })).toBe(true);
    expect(cart.get()).toEqual({ total: 4, items: [{ _id: 'a', quantity: 1 }, { _id: 'b', quantity: 3, name: 'Mug', price: 1500 }] });
    expect(cartTotal.get()).toBe(4);
    expect(stored()).toEqual(cart.get());
  });

  it('add is ignored when an item with the same _id is present', () => {
    addToCart({ _id: 'a', quantity: 2 });
    expect(addToCart({ _id: 'a', quantity: 5 })).toBe(false);
    expect(cart.get()).toEqual({ total: 2, items: [{ _id: 'a', quantity: 2 }] });
    expect(isInCart('a')).toBe(true);
  });

  it('add refuses a bad quantity or id', () => {
    expect(addToCart({ _id: 'a', quantity: 0 })).toBe(false);
    expect(addToCart({ _id: 'a', quantity: 1.5 })).toBe(false);
    expect(addToCart({ _id: '' })).toBe(false);
    expect(cart.get().items).toEqual([]);
  });

  it('remove', () => {
    addToCart({ _id: 'a' });
    addToCart({ _id: 'b', quantity: 2 });
    removeFromCart('a');
    expect(cart.get()).toEqual({ total: 2, items: [{ _id: 'b', quantity: 2 }] });
    removeFromCart('missing');
    expect(cart.get().total).toBe(2);
  });

  it('update quantity: sets it, recomputes total, below 1 removes, caps at the maximum, ignores non-integers', () => {
    addToCart({ _id: 'a' });
    addToCart({ _id: 'b' });
    updateCartQuantity('a', 4);
    expect(cart.get().total).toBe(5);
    updateCartQuantity('a', 2.5);
    updateCartQuantity('a', Number.NaN);
    expect(cart.get().items[0]!.quantity).toBe(4);
    updateCartQuantity('a', 1000);
    expect(cart.get().items[0]!.quantity).toBe(MAX_QUANTITY);
    updateCartQuantity('b', 0);
    expect(cart.get().items.map((i) => i._id)).toEqual(['a']);
    updateCartQuantity('missing', 3);
    expect(cart.get().total).toBe(MAX_QUANTITY);
    expect(stored().total).toBe(MAX_QUANTITY);
  });

  it('clear, and the app-wide reset clears it too', () => {
    addToCart({ _id: 'a', quantity: 2 });
    clearCart();
    expect(cart.get()).toEqual({ total: 0, items: [] });
    addToCart({ _id: 'b' });
    resetAll();
    expect(cart.get()).toEqual({ total: 0, items: [] });
    expect(stored()).toEqual({ total: 0, items: [] });
  });

  it('reloads from storage, repairing what it cannot trust', () => {
    expect(sanitizeCart({ total: 99, items: [{ _id: 'a', quantity: 2 }, { _id: 'a', quantity: 9 }, { _id: 'b' }, { _id: 'c', quantity: -1 }, { quantity: 1 }, 'x'] })).toEqual({
      total: 3,
      items: [{ _id: 'a', quantity: 2 }, { _id: 'b', quantity: 1 }],
    });
    expect(sanitizeCart(null)).toEqual({ total: 0, items: [] });
    expect(sanitizeCart({ items: 'nope' })).toEqual({ total: 0, items: [] });
    // Another tab writes the key: this tab's store follows.
    window.dispatchEvent(new StorageEvent('storage', { key: CART_STORAGE_KEY, newValue: JSON.stringify({ items: [{ _id: 'z', quantity: 7 }] }), storageArea: localStorage }));
    localStorage.setItem(CART_STORAGE_KEY, JSON.stringify({ items: [{ _id: 'z', quantity: 7 }] }));
    window.dispatchEvent(new StorageEvent('storage', { key: CART_STORAGE_KEY, newValue: JSON.stringify({ items: [{ _id: 'z', quantity: 7 }] }), storageArea: localStorage }));
    expect(cart.get()).toEqual({ total: 7, items: [{ _id: 'z', quantity: 7 }] });
  });
});
