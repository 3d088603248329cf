// @vitest-environment jsdom
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import VideoStage from '../../src/islands/video/VideoStage.js';
import VideoActions from '../../src/islands/video/VideoActions.js';
import VideoComments from '../../src/islands/video/VideoComments.js';
import type { VideoViewer } from '../../common/schemas/member-shell.js';
import { reply, sampleUser, stubFetch } from './client-helpers.js';
import { isolateShellPageTests, renderOnShellPage } from './shell-page.js';

/**
 * A video's page's controls on the member shell (docs/architecture.md): the stage (player or paywall), the reactions,
 * Tip and Report, and the comments wait for the header's one request, which names the video, and show the visitor's
 * own state; a session that is gone leaves a guest's links, a failed request a way to ask again; a page rendered for
 * the visitor needs no request at all.
 */
const VIDEO = 'v1';
const LOGIN = '/auth/login?next=%2Fvideos%2Fv1';
const locked = (over: Partial<VideoViewer> = {}): VideoViewer => ({
  videoId: VIDEO, self: false, locked: true, media: null,
  offer: { monthly: 999, yearly: null, plans: [{ type: 'monthly', bundleMonths: null, price: 999, periodDays: 30, discountBps: null, firstPrice: 0, trialDays: 7, promotion: null }] },
  reacted: { like: false, favourite: false, watch_later: false },
  ...over,
});
const open = (over: Partial<VideoViewer> = {}): VideoViewer =>
  locked({ locked: false, offer: null, media: { url: '/media/protected/video/v1/f1?u=u1&e=1&s=x', expiresAt: '2026-12-01T00:00:00.000Z', mime: 'video/mp4', size: 1, width: null, height: null, duration: null }, ...over });
const header = (video: VideoViewer | null) => ({ user: sampleUser, unread: { messages: 0, notifications: 0 }, unlocksMore: true, video });

function renderPage(initial: VideoViewer | null = null, comments = false) {
  // The member shell names its video for the header's request.
  return renderOnShellPage(
    { memberVideo: VIDEO },
    <>
      <VideoStage videoId={VIDEO} performerId="p1" title="Core" poster={null} teaser={null} image="/poster.jpg" lockText="Subscribe to Pia to watch this video in full." priceLabel={null} buyPrice={null} initial={initial} loginHref={LOGIN} />
      <VideoActions videoId={VIDEO} performerId="p1" performerName="Pia" counts={{ like: 4, favourite: 1 }} tipLimits={{ min: 100, max: 20_000 }} initial={initial} loginHref={LOGIN} />
      {comments && <VideoComments videoId={VIDEO} needs="subscription" commentCount={3} unlockHref="/performers/pia" guestLocked initial={initial} viewer={null} />}
    </>,
  );
}

isolateShellPageTests();

describe("a video's page's controls", () => {
  it('ask the header once, with the video, and show a locked video its price for this visitor and their reactions', async () => {
    const { calls } = stubFetch({ 'GET /api/users/me/header': reply(200, header(locked({ reacted: { like: true, favourite: false, watch_later: false } }))) });
    renderPage(null, true);
    expect(screen.getByTestId('paywall-pending').getAttribute('aria-busy')).toBe('true');
    expect(screen.getByTestId('reaction-like').hasAttribute('disabled')).toBe(true);
    await waitFor(() => expect(screen.getByTestId('subscribe-monthly').textContent).toContain('7-day'));
    expect(screen.getByTestId('reaction-like').getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByTestId('reaction-like').hasAttribute('disabled')).toBe(false);
    expect(screen.getByTestId('tip-button')).toBeTruthy();
    expect(screen.getByTestId('report-button')).toBeTruthy();
    // The comments stay locked for them: the count and what opens them.
    expect(screen.getByTestId('comments-locked').textContent).toContain('Subscribe');
    expect(screen.getByTestId('comments-total').textContent).toBe('3');
    expect(screen.queryByTestId('video-player')).toBe(null);
    expect(calls).toHaveLength(1);
    expect(new URL(calls[0]!.url, 'http://x').searchParams.get('video')).toBe(VIDEO);
  });

  it('play the video with the file signed for the visitor when it is open to them', async () => {
    stubFetch({ 'GET /api/users/me/header': reply(200, header(open())) });
    renderPage();
    await waitFor(() => expect(screen.getByTestId('video-player').getAttribute('src')).toContain('u=u1'));
    expect(screen.queryByTestId('locked-video')).toBe(null);
    expect(screen.queryByTestId('subscribe-monthly')).toBe(null);
  });

  it("show one's own video no Tip and no Report", async () => {
    stubFetch({ 'GET /api/users/me/header': reply(200, header(open({ self: true }))) });
    renderPage();
    await waitFor(() => expect(screen.getByTestId('video-player')).toBeTruthy());
    expect(screen.getByTestId('reaction-like').hasAttribute('disabled')).toBe(false);
    for (const id of ['tip-button', 'tip-login', 'report-button', 'report-login']) expect(screen.queryByTestId(id), id).toBe(null);
  });

  it('leave a visitor whose session is gone the links to log in, without sending them away', async () => {
    stubFetch({ 'GET /api/users/me/header': reply(401, { message: 'Unauthorized', code: 'UNAUTHORIZED' }) });
    renderPage(null, true);
    await waitFor(() => expect(screen.getByTestId('paywall-login').getAttribute('href')).toBe(LOGIN));
    expect(screen.getByTestId('tip-login').getAttribute('href')).toBe(LOGIN);
    expect(screen.getByTestId('report-login').getAttribute('href')).toBe(LOGIN);
    expect(screen.getByTestId('comments-locked')).toBeTruthy();
    expect(screen.queryByTestId('tip-button')).toBe(null);
  });

  it('offer to ask again after a failed request, and show the answer then', async () => {
    let fail = true;
    stubFetch({ 'GET /api/users/me/header': () => (fail ? reply(503, { message: 'Back in a moment', code: 'UNAVAILABLE' }) : reply(200, header(open()))) });
    renderPage();
    const retry = await screen.findByTestId('video-viewer-retry');
    expect(screen.getByTestId('reaction-like').hasAttribute('disabled')).toBe(true);
    fail = false;
    fireEvent.click(retry);
    await waitFor(() => expect(screen.getByTestId('video-player')).toBeTruthy());
  });

  it('ask nothing when the page was rendered for the visitor', async () => {
    const { calls } = stubFetch({});
    renderPage(locked({ offer: null }));
    expect(screen.getByTestId('paywall')).toBeTruthy();
    expect(screen.queryByTestId('subscribe-monthly')).toBe(null);
    expect(screen.getByTestId('reaction-like').hasAttribute('disabled')).toBe(false);
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toHaveLength(0);
  });
});
