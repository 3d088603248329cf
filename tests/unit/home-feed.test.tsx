// @vitest-environment jsdom
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import Feed from '../../src/islands/Feed.js';
import HomeGreeting from '../../src/islands/home/HomeGreeting.js';
import type { FeedItem } from '../../common/schemas/feed.js';
import { toFeedCard } from '../../src/lib/feed-cards.js';
import { reply, sampleUser, stubFetch } from './client-helpers.js';
import { isolateShellPageTests, renderOnShellPage } from './shell-page.js';

/**
 * The home feed on the member shell (docs/architecture.md): one copy for every signed-in visitor, whose greeting and
 * feed wait for the header's one request (the page names the feed's page size) and then show the visitor's own; a
 * session that is gone gets the way to log in, a failed request a way to ask again, and a page rendered for the
 * visitor needs no request.
 */
const post = (id: string, title: string, over: Partial<Extract<FeedItem, { kind: 'post' }>['post']> = {}): FeedItem => ({
  kind: 'post', _id: id, publishedAt: '2026-11-20T10:00:00.000Z',
  post: {
    _id: id, slug: id, type: 'post', title, excerpt: null, image: null, performerId: 'p1', performer: { _id: 'p1', username: 'pia', name: 'Pia', avatar: '/a.webp' },
    access: 'free', price: 0, locked: false, imageCount: 0, hasVideo: false, status: 'published', publishedAt: '2026-11-20T10:00:00.000Z', createdAt: '2026-11-20T10:00:00.000Z',
    likeCount: 0, favouriteCount: 0, commentCount: 0, ...over,
  },
});
const page = (items: FeedItem[], nextCursor: string | null = null) => ({ items, nextCursor });
const header = (feed: ReturnType<typeof page>, role: 'user' | 'performer' | 'admin' = 'user') => ({
  user: { ...sampleUser, role }, unread: { messages: 0, notifications: 0 }, unlocksMore: false, feed,
});

function renderHome(initial: ReturnType<typeof page> | null = null, user: { name: string; role: 'user' } | null = null) {
  const cards = initial && { ...initial, items: initial.items.map(toFeedCard) };
  return renderOnShellPage(
    { memberFeed: '2' },
    <>
      <HomeGreeting user={user} />
      <Feed initial={cards} pageSize={2} />
    </>,
  );
}

isolateShellPageTests();

describe('the home feed on the member shell', () => {
  it("asks the header once, with the page size, then greets the visitor and shows their feed's first page", async () => {
    const { calls } = stubFetch({
      'GET /api/users/me/header': reply(200, header(page([post('a1', 'Morning run'), post('a2', 'Locked diary', { locked: true, access: 'subscribers' })], 'c2'), 'performer')),
      'GET /api/feed': reply(200, page([post('a3', 'Older one')])),
    });
    renderHome();
    expect(screen.getByTestId('feed-pending').getAttribute('aria-busy')).toBe('true');
    expect(screen.getByTestId('home-greeting').textContent).toBe('Hello');
    await waitFor(() => expect(screen.getAllByTestId('feed-item')).toHaveLength(2));
    expect(screen.getByTestId('home-greeting').textContent).toBe('Hello, Ada Fan');
    expect(screen.getByText('Performer studio')).toBeTruthy();
    expect(screen.queryByText('Admin')).toBe(null);
    expect(screen.getAllByTestId('feed-unlock')).toHaveLength(1);
    expect(calls).toHaveLength(1);
    expect(new URL(calls[0]!.url, 'http://x').searchParams.get('feed')).toBe('2');
    // The next page goes on from the first page's cursor.
    fireEvent.click(screen.getByTestId('feed-more'));
    await waitFor(() => expect(screen.getAllByTestId('feed-item')).toHaveLength(3));
    expect(new URL(calls[1]!.url, 'http://x').searchParams.get('cursor')).toBe('c2');
    expect(screen.queryByTestId('feed-more')).toBe(null);
  });

  it('tells a visitor whose session is gone to log in, and comes back here', async () => {
    stubFetch({ 'GET /api/users/me/header': reply(401, { message: 'Unauthorized', code: 'UNAUTHORIZED' }) });
    renderHome();
    await waitFor(() => expect(screen.getByTestId('feed-guest')).toBeTruthy());
    expect(screen.getByRole('link', { name: 'Log in' }).getAttribute('href')).toBe('/auth/login?next=%2Fhome');
    expect(screen.getByTestId('home-greeting').textContent).toBe('Hello');
    expect(screen.queryByTestId('feed-item')).toBe(null);
  });

  it('offers to ask again after a failed request, and then shows the feed', async () => {
    let fail = true;
    stubFetch({ 'GET /api/users/me/header': () => (fail ? reply(503, { message: 'Back soon', code: 'UNAVAILABLE' }) : reply(200, header(page([])))) });
    renderHome();
    await waitFor(() => expect(screen.getByTestId('feed-retry')).toBeTruthy());
    fail = false;
    fireEvent.click(screen.getByTestId('feed-retry'));
    await waitFor(() => expect(screen.getByTestId('feed-empty')).toBeTruthy());
  });

  it('asks nothing when the page was rendered for the visitor', async () => {
    const { calls } = stubFetch({});
    renderHome(page([post('a1', 'Morning run')]), { name: 'Ada Fan', role: 'user' });
    expect(screen.getAllByTestId('feed-item')).toHaveLength(1);
    expect(screen.getByTestId('home-greeting').textContent).toBe('Hello, Ada Fan');
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toHaveLength(0);
  });
});
