import { describe, expect, it } from 'vitest';
import { countOf, formatCount, nounFor, waitInWords } from '../../common/plural.js';

/** The one helper that puts a number and its noun together (common/plural.ts). */
describe('countOf: a number with its noun', () => {
  it.each([
    [0, 'subscriber', undefined, '0 subscribers'],
    [1, 'subscriber', undefined, '1 subscriber'],
    [2, 'subscriber', undefined, '2 subscribers'],
    [1, 'video', undefined, '1 video'],
    [1, 'like', undefined, '1 like'],
    [1, 'photo', undefined, '1 photo'],
    [1, 'comment', undefined, '1 comment'],
    [11, 'view', undefined, '11 views'],
    [1, 'gallery', 'galleries', '1 gallery'],
    [3, 'gallery', 'galleries', '3 galleries'],
    [0, 'gallery', 'galleries', '0 galleries'],
    [1262, 'subscriber', undefined, '1,262 subscribers'],
    [1_000_000, 'view', undefined, '1,000,000 views'],
    [1001, 'item', undefined, '1,001 items'],
  ])('countOf(%i, %s, %s) = %s', (n, singular, plural, expected) => {
    expect(countOf(n, singular, plural)).toBe(expected);
  });

  it('formats thousands with commas and never prints a fraction', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1000)).toBe('1,000');
    expect(formatCount(1262)).toBe('1,262');
    expect(formatCount(12345678)).toBe('12,345,678');
    expect(formatCount(3.7)).toBe('3');
  });

  it('nounFor gives the word alone, for a count shown apart from it', () => {
    expect(nounFor(1, 'like')).toBe('like');
    expect(nounFor(0, 'like')).toBe('likes');
    expect(nounFor(2, 'favourite')).toBe('favourites');
    expect(nounFor(1, 'gallery', 'galleries')).toBe('gallery');
    expect(nounFor(5, 'gallery', 'galleries')).toBe('galleries');
  });

  it.each([
    [1, '1 second'], [2, '2 seconds'], [59, '59 seconds'], [60, '1 minute'], [61, '2 minutes'], [120, '2 minutes'], [121, '3 minutes'], [900, '15 minutes'],
  ])('waitInWords(%i) = %s (whole minutes, rounded up, from a minute on)', (sec, expected) => {
    expect(waitInWords(sec)).toBe(expected);
  });
});
