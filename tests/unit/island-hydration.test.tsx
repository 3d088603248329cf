// @vitest-environment jsdom
import { act } from '@testing-library/react';
import { createElement, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { hydrateRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import NotificationList from '../../src/islands/NotificationList.js';
import StudioPromotions from '../../src/islands/studio/StudioPromotions.js';
import type { NotificationItem } from '../../common/schemas/notifications.js';
import type { Promotion } from '../../common/schemas/money.js';

/**
 * Islands are rendered on the server and hydrated in the browser, later and perhaps elsewhere in the world. What they
 * print first must not depend on the clock, time zone or language, or React discards the server's markup (#418).
 * Each case renders on the "server" at one moment, hydrates a minute later in another language, and counts React's
 * recoverable errors.
 */
async function hydrationErrors(element: () => ReactElement, later: () => void): Promise<unknown[]> {
  const html = renderToString(element());
  later();
  const container = document.createElement('div');
  container.innerHTML = html;
  document.body.append(container);
  const errors: unknown[] = [];
  await act(async () => {
    hydrateRoot(container, element(), { onRecoverableError: (error) => errors.push(error) });
  });
  return errors;
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('islands hydrate the markup the server printed', () => {
  it('the notification list: "just now" on the server stays so until mounted, then follows the browser clock', async () => {
    const rendered = Date.parse('2026-11-27T10:00:00.000Z');
    vi.useFakeTimers({ now: rendered, toFake: ['Date'] });
    const item: NotificationItem = {
      _id: 'n1', type: 'message', text: 'Ann sent you a message', url: '/messages/c1', actorName: 'Ann', read: false, readAt: null,
      createdAt: new Date(rendered - 30_000).toISOString(),
    };
    const element = () => createElement(NotificationList, { initial: { items: [item], total: 1 }, pageSize: 20, renderedAt: rendered });
    const errors = await hydrationErrors(element, () => vi.setSystemTime(rendered + 61_000));
    expect(errors).toEqual([]);
    // After mounting it tells the browser's time: 91 s after the notification.
    expect(document.querySelector('time')?.textContent).toBe('1 min ago');
  });

  it('the studio promotions: times in UTC until mounted, then in the reader\'s language', async () => {
    const promotion: Promotion = {
      _id: 'p1', valueBps: 2500, startsAt: '2026-11-27T10:00:00.000Z', endsAt: '2026-12-01T10:00:00.000Z', maxUses: null, usedCount: 0, state: 'running',
      createdAt: '2026-11-26T10:00:00.000Z',
    };
    const element = () => createElement(StudioPromotions, { initial: [promotion] });
    // The browser reads in another language than the server's fixed one.
    class German extends Intl.DateTimeFormat {
      constructor(locale?: string | string[], options?: Intl.DateTimeFormatOptions) {
        super(locale ?? 'de-DE', options);
      }
    }
    const errors = await hydrationErrors(element, () => vi.stubGlobal('Intl', Object.assign(Object.create(Intl), { DateTimeFormat: German })));
    expect(errors).toEqual([]);
    // Mounted, the reader's language: German month names.
    expect(document.querySelector('[data-testid="promotion-item"]')?.textContent).toContain('27. Nov.');
  });
});
