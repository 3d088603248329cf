// @vitest-environment jsdom
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import PerformerActions from '../../src/islands/performer/PerformerActions.js';
import PerformerSubscribe from '../../src/islands/performer/PerformerSubscribe.js';
import type { PerformerViewer } from '../../common/schemas/member-shell.js';
import { reply, sampleUser, stubFetch } from './client-helpers.js';
import { isolateShellPageTests, renderOnShellPage } from './shell-page.js';

/**
 * A performer's page's controls on the member shell (docs/architecture.md): both islands wait for the header's one
 * request, which names the performer, and show the visitor's own state; a session that is gone leaves a guest's
 * links, a failed request a way to ask again; a page rendered for the visitor needs no request at all.
 */
const PERFORMER = 'p1';
const limits = { min: 100, max: 20_000 };
const state = (over: Partial<PerformerViewer> = {}): PerformerViewer => ({
  performerId: PERFORMER, self: false, following: true, followerCount: 7, subscribed: false,
  offer: { monthly: 999, yearly: null, plans: [{ type: 'monthly', bundleMonths: null, price: 999, periodDays: 30, discountBps: null, firstPrice: 0, trialDays: 7, promotion: null }] },
  messaging: { allowed: false, reason: 'Only subscribers can message this performer first', conversationId: null },
  ...over,
});
const header = (performer: PerformerViewer | null) => ({ user: sampleUser, unread: { messages: 0, notifications: 0 }, unlocksMore: false, performer });

function renderPage(initial: PerformerViewer | null = null) {
  // The member shell names its performer for the header's request.
  return renderOnShellPage(
    { memberPerformer: PERFORMER },
    <>
      <PerformerActions performerId={PERFORMER} performerName="Pia" followerCount={5} tipLimits={limits} initial={initial} loginHref="/auth/login?next=%2Fperformers%2Fpia" />
      <PerformerSubscribe performerId={PERFORMER} guestPlans={[]} initial={initial} />
    </>,
  );
}

isolateShellPageTests();

describe("a performer's page's controls", () => {
  it("ask the header once, with the performer, and show the visitor's own follow, messaging and trial", async () => {
    const { calls } = stubFetch({ 'GET /api/users/me/header': reply(200, header(state())) });
    renderPage();
    expect(screen.getByTestId('performer-actions-pending').getAttribute('aria-busy')).toBe('true');
    await waitFor(() => expect(screen.getByTestId('follow-button').textContent).toBe('Following'));
    expect(screen.getByTestId('follower-count').textContent).toBe('7 followers');
    expect(screen.getByTestId('message-why-not').textContent).toContain('Only subscribers');
    expect(screen.getByTestId('subscribe-monthly').textContent).toContain('7-day');
    expect(calls).toHaveLength(1);
    expect(new URL(calls[0]!.url, 'http://x').searchParams.get('performer')).toBe(PERFORMER);
  });

  it("show one's own page its follower count and nothing to click", async () => {
    stubFetch({ 'GET /api/users/me/header': reply(200, header(state({ self: true, messaging: null }))) });
    renderPage();
    await waitFor(() => expect(screen.getByTestId('follower-count').textContent).toBe('7 followers'));
    for (const id of ['follow-button', 'follow-login', 'tip-button', 'report-button', 'subscribe-monthly', 'performer-actions-pending']) expect(screen.queryByTestId(id), id).toBe(null);
  });

  it('leave a visitor whose session is gone the links to log in, without sending them away', async () => {
    stubFetch({ 'GET /api/users/me/header': reply(401, { message: 'Unauthorized', code: 'UNAUTHORIZED' }) });
    renderPage();
    await waitFor(() => expect(screen.getByTestId('follow-login').getAttribute('href')).toBe('/auth/login?next=%2Fperformers%2Fpia'));
    expect(screen.getByTestId('tip-login')).toBeTruthy();
    expect(screen.queryByTestId('follow-button')).toBe(null);
  });

  it('offer to ask again after a failed request, and show the answer then', async () => {
    let fail = true;
    stubFetch({ 'GET /api/users/me/header': () => (fail ? reply(503, { message: 'Back in a moment', code: 'UNAVAILABLE' }) : reply(200, header(state({ subscribed: true })))) });
    renderPage();
    const retry = await screen.findByTestId('performer-actions-retry');
    fail = false;
    fireEvent.click(retry);
    await waitFor(() => expect(screen.getByTestId('subscribe-active')).toBeTruthy());
    expect(screen.getByTestId('follow-button')).toBeTruthy();
  });

  it('ask nothing when the page was rendered for the visitor', async () => {
    const { calls } = stubFetch({});
    renderPage(state({ following: false, followerCount: 3 }));
    expect(screen.getByTestId('follow-button').textContent).toBe('Follow');
    expect(screen.getByTestId('follower-count').textContent).toBe('3 followers');
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toHaveLength(0);
  });
});
