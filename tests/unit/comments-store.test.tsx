// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { created, lastSocket } from './fake-socket.js';
import { flush, reply, setPageJson, stubFetch } from './client-helpers.js';
import {
  addComment,
  COMMENT_ERROR,
  COMMENTED,
  commentState,
  createComment,
  deleteComment,
  dropComment,
  loadComments,
  REMOVED,
  subscribeComments,
} from '../../src/lib/stores/comments.js';
import { connectRealtime, disconnectRealtime } from '../../src/lib/stores/realtime.js';
import { reactionState, toggleReaction } from '../../src/lib/stores/reactions.js';
import { toasts } from '../../src/lib/stores/toast.js';
import { resetAll } from '../../src/lib/stores/reset.js';
import { setNavigator } from '../../src/lib/navigation.js';
import Comments from '../../src/islands/Comments.js';
import ReactionButtons from '../../src/islands/ReactionButtons.js';
import type { CommentItem } from '../../common/schemas/engagement.js';

vi.mock('socket.io-client', async () => (await import('./fake-socket.js')).socketIoMock);

const toastTexts = () => toasts.get().map((t) => [t.type, t.message]);
let seq = 0;
function comment(over: Partial<CommentItem> = {}): CommentItem {
  seq += 1;
  const id = `c${String(seq).padStart(4, '0')}`;
  return {
    _id: id,
    objectType: 'video',
    objectId: 'v1',
    content: `comment ${id}`,
    image: null,
    userId: 'u1',
    user: { _id: 'u1', name: 'Ada Fan', username: 'ada', avatar: '/no-avatar.png' },
    createdAt: '2026-05-01T10:00:00.000Z',
    updatedAt: '2026-05-01T10:00:00.000Z',
    ...over,
  };
}
const page = (items: CommentItem[], total = items.length, extra: Record<string, unknown> = {}) => ({ items, total, nextCursor: null, canModerate: false, ...extra });

beforeEach(() => {
  document.head.innerHTML = '';
  setPageJson('runtime-config', { apiBase: '/api', socketUrl: '', socketPath: '/socket.io', env: 'test' });
  sessionStorage.clear();
  created.length = 0;
  resetAll();
  setNavigator(vi.fn());
});
afterEach(() => {
  cleanup();
  disconnectRealtime();
  vi.unstubAllGlobals();
  setNavigator();
});

describe('comments store', () => {
  it('loads a page per objectId: requesting, then items and total', async () => {
    const items = [comment(), comment()];
    const { calls } = stubFetch({ 'GET /api/comments/search': reply(200, page(items, 5, { nextCursor: 'cur1' })) });
    const pending = loadComments('video', 'v1');
    expect(commentState('v1').requesting).toBe(true);
    await pending;
    expect(commentState('v1')).toMatchObject({ items, total: 5, requesting: false, loaded: true, nextCursor: 'cur1' });
    expect(calls[0]!.url).toBe('/api/comments/search?objectType=video&objectId=v1&limit=10');
    expect(commentState('other')).toMatchObject({ items: [], total: 0, requesting: false });

    const more = [comment()];
    const next = stubFetch({ 'GET /api/comments/search': reply(200, page(more, 5)) });
    await loadComments('video', 'v1', { more: true });
    expect(next.calls[0]!.url).toContain('cursor=cur1');
    expect(commentState('v1').items.map((c) => c._id)).toEqual([...items, ...more].map((c) => c._id));
  });

  it('create puts the comment at the top, raises total by one and toasts; failure toasts the error', async () => {
    const old = comment();
    stubFetch({ 'GET /api/comments/search': reply(200, page([old])) });
    await loadComments('video', 'v1');
    const fresh = comment({ content: 'new one' });
    const { calls } = stubFetch({ 'POST /api/comments': reply(201, { ...fresh, commentCount: 2 }) });
    await expect(createComment('video', 'v1', 'new one')).resolves.toMatchObject({ _id: fresh._id });
    expect(calls[0]!.body).toEqual({ objectType: 'video', objectId: 'v1', content: 'new one' });
    expect(commentState('v1').items.map((c) => c._id)).toEqual([fresh._id, old._id]);
    expect(commentState('v1').total).toBe(2);
    expect(commentState('v1').items[0]).not.toHaveProperty('commentCount');
    expect(toastTexts()).toEqual([['success', COMMENTED]]);
    expect(COMMENTED).toBe('Commented successfully');

    stubFetch({ 'POST /api/comments': reply(400, { message: 'Comment cannot be empty', code: 'VALIDATION_FAILED' }) });
    await expect(createComment('video', 'v1', ' ')).resolves.toBeNull();
    expect(commentState('v1').total).toBe(2);
    expect(commentState('v1').posting).toBe(false);
    expect(toastTexts().at(-1)).toEqual(['error', 'Error occured, please try again later']);
    expect(COMMENT_ERROR).toBe('Error occured, please try again later');
  });

  it('delete removes it, lowers total by one and toasts; failure toasts the error', async () => {
    const [a, b] = [comment(), comment()];
    stubFetch({ 'GET /api/comments/search': reply(200, page([a, b])) });
    await loadComments('video', 'v1');
    stubFetch({ [`DELETE /api/comments/${a._id}`]: reply(200, { _id: a._id, objectType: 'video', objectId: 'v1', commentCount: 1 }) });
    await expect(deleteComment('v1', a._id)).resolves.toBe(true);
    expect(commentState('v1')).toMatchObject({ items: [b], total: 1 });
    expect(toastTexts()).toEqual([['success', REMOVED]]);
    expect(REMOVED).toBe('Removed successfully!');

    stubFetch({ [`DELETE /api/comments/${b._id}`]: reply(403, { message: 'nope', code: 'FORBIDDEN' }) });
    await expect(deleteComment('v1', b._id)).resolves.toBe(false);
    expect(commentState('v1')).toMatchObject({ items: [b], total: 1 });
    expect(toastTexts().at(-1)).toEqual(['error', COMMENT_ERROR]);
  });

  it('applies a change once when it arrives twice (own request + realtime echo)', () => {
    const c = comment();
    expect(addComment(c)).toBe(true);
    expect(addComment(c)).toBe(false);
    expect(commentState('v1').total).toBe(1);
    expect(dropComment('v1', c._id)).toBe(true);
    expect(dropComment('v1', c._id)).toBe(false);
    expect(addComment(c)).toBe(false);
    expect(commentState('v1')).toMatchObject({ items: [], total: 0 });
  });

  it('follows comment/created, comment/updated and comment/deleted of the watched object only', async () => {
    stubFetch({ 'GET /api/comments/search': reply(200, page([])) });
    await loadComments('video', 'v1');
    const off = subscribeComments('video', 'v1');
    connectRealtime({ loggedIn: true });
    const s = lastSocket();
    s.serverConnect();
    expect(s.sent('object/watch').map((e) => e.payload)).toEqual([{ objectType: 'video', objectId: 'v1' }]);
    const live = comment({ content: 'live' });
    s.fire('comment/created', { comment: live, commentCount: 1 });
    s.fire('comment/created', { comment: comment({ objectId: 'v2' }), commentCount: 1 });
    s.fire('comment/created', { comment: comment({ objectType: 'gallery' }), commentCount: 1 });
    expect(commentState('v1')).toMatchObject({ items: [live], total: 1 });
    s.fire('comment/updated', { comment: { ...live, content: 'edited' } });
    expect(commentState('v1').items[0]!.content).toBe('edited');
    s.fire('comment/deleted', { _id: live._id, objectType: 'video', objectId: 'v1', commentCount: 0 });
    expect(commentState('v1')).toMatchObject({ items: [], total: 0 });
    off();
    expect(s.sent('object/unwatch')).toHaveLength(1);
    s.fire('comment/created', { comment: comment(), commentCount: 1 });
    expect(commentState('v1').total).toBe(0);
  });
});

describe('Comments island', () => {
  it('guests see the comments and a login prompt, no form', async () => {
    const c = comment({ content: 'hello guests' });
    stubFetch({ 'GET /api/comments/search': reply(200, page([c])) });
    render(<Comments objectType="video" objectId="v1" viewer={null} />);
    expect(await screen.findByText('hello guests')).toBeTruthy();
    expect(screen.getByTestId('comment-login-prompt').textContent).toContain('Log in');
    expect(screen.queryByTestId('comment-form')).toBeNull();
    expect(screen.queryByTestId('comment-delete')).toBeNull();
    expect(created).toHaveLength(0);
  });

  it('renders script payloads as text, never as markup', () => {
    const payload = '<script>window.__x = 1</script><img src=x onerror="window.__y=1">';
    render(<Comments objectType="video" objectId="v1" viewer={null} initial={page([comment({ content: payload })])} />);
    expect(screen.getByTestId('comment-text').textContent).toBe(payload);
    const list = screen.getByTestId('comments-list');
    expect(list.querySelector('script')).toBeNull();
    expect(list.querySelectorAll('img')).toHaveLength(1); // the avatar only
    expect((window as unknown as { __y?: number }).__y).toBeUndefined();
  });

  it('posts a comment, shows it at the top with the new total, and deletes own comments only', async () => {
    const mine = comment({ userId: 'me', user: { _id: 'me', name: 'Me', username: 'me', avatar: '/no-avatar.png' } });
    const theirs = comment({ userId: 'them' });
    render(<Comments objectType="video" objectId="v1" viewer={{ _id: 'me', role: 'user' }} initial={page([mine, theirs])} />);
    await flush();
    expect(screen.getByTestId('comments-total').textContent).toBe('2');
    expect(screen.getAllByTestId('comment-delete')).toHaveLength(1);

    const fresh = comment({ content: 'typed text', userId: 'me' });
    stubFetch({ 'POST /api/comments': reply(201, { ...fresh, commentCount: 3 }) });
    const submit = screen.getByTestId('comment-submit') as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    fireEvent.input(screen.getByTestId('comment-input'), { target: { value: 'typed text' } });
    fireEvent.click(submit);
    await waitFor(() => expect(screen.getByTestId('comments-total').textContent).toBe('3'));
    expect(screen.getAllByTestId('comment-text')[0]!.textContent).toBe('typed text');
    expect((screen.getByTestId('comment-input') as HTMLTextAreaElement).value).toBe('');

    stubFetch({ [`DELETE /api/comments/${mine._id}`]: reply(200, { _id: mine._id, objectType: 'video', objectId: 'v1', commentCount: 2 }) });
    const deleteButtons = screen.getAllByTestId('comment-delete');
    fireEvent.click(deleteButtons[deleteButtons.length - 1]!);
    await waitFor(() => expect(screen.getByTestId('comments-total').textContent).toBe('2'));
    expect(screen.queryByText(mine.content)).toBeNull();
    expect(toastTexts()).toEqual([['success', COMMENTED], ['success', REMOVED]]);
  });

  it('moderators (the object performer, admins) may delete every comment', async () => {
    render(<Comments objectType="video" objectId="v1" viewer={{ _id: 'perf', role: 'performer' }} initial={page([comment(), comment()], 2, { canModerate: true })} />);
    await flush();
    expect(screen.getAllByTestId('comment-delete')).toHaveLength(2);
  });

  it('shows comments pushed by the server without reload', async () => {
    stubFetch({ 'GET /api/comments/search': reply(200, page([])) });
    render(<Comments objectType="video" objectId="v1" viewer={{ _id: 'me', role: 'user' }} />);
    await screen.findByTestId('comments-empty');
    connectRealtime({ loggedIn: true });
    act(() => lastSocket().serverConnect());
    act(() => lastSocket().fire('comment/created', { comment: comment({ content: 'from someone else' }), commentCount: 1 }));
    expect(screen.getByText('from someone else')).toBeTruthy();
    expect(screen.getByTestId('comments-total').textContent).toBe('1');
  });
});

describe('Comments island on a locked item', () => {
  const lockedBody = (needs: 'subscription' | 'purchase', commentCount: number) => ({
    message: needs === 'subscription' ? 'Subscribe to read and join the conversation' : 'Buy this item to read and join the conversation',
    code: 'LOCKED',
    details: { needs, commentCount },
  });

  it('the page found it locked: the count and a subscribe message, no comments, no form, nothing loaded or watched', async () => {
    const { calls } = stubFetch({});
    connectRealtime({ loggedIn: true });
    act(() => lastSocket().serverConnect());
    render(<Comments objectType="video" objectId="v1" viewer={{ _id: 'me', role: 'user' }} locked={{ needs: 'subscription', commentCount: 7 }} unlockHref="/performers/star" />);
    await flush();
    expect(screen.getByTestId('comments-total').textContent).toBe('7');
    const message = screen.getByTestId('comments-locked');
    expect(message.textContent).toContain('Subscribe to read and join the conversation');
    expect(message.querySelector('a')?.getAttribute('href')).toBe('/performers/star');
    expect(screen.queryByTestId('comments-list')).toBeNull();
    expect(screen.queryByTestId('comment-form')).toBeNull();
    expect(screen.queryByTestId('comment-login-prompt')).toBeNull();
    expect(calls).toEqual([]);
    expect(lastSocket().sent('object/watch')).toEqual([]);
    // Nothing pushed for this object shows (the server would not send it; the island does not listen either).
    act(() => lastSocket().fire('comment/created', { comment: comment({ content: 'should not show' }), commentCount: 8 }));
    expect(screen.queryByText('should not show')).toBeNull();
    expect(screen.getByTestId('comments-total').textContent).toBe('7');
  });

  it('guests get a buy message and a log-in link for a sale item', async () => {
    render(<Comments objectType="gallery" objectId="g1" viewer={null} locked={{ needs: 'purchase', commentCount: 2 }} />);
    await flush();
    const message = screen.getByTestId('comments-locked');
    expect(message.textContent).toContain('Buy to read and join the conversation');
    expect(message.textContent).toContain('Log in');
    expect(screen.getByTestId('comments-total').textContent).toBe('2');
  });

  it('a 403 LOCKED answer to the list turns the island into the locked view with the public count and stops watching', async () => {
    connectRealtime({ loggedIn: true });
    act(() => lastSocket().serverConnect());
    stubFetch({ 'GET /api/comments/search': reply(403, lockedBody('subscription', 4)) });
    render(<Comments objectType="video" objectId="v1" viewer={{ _id: 'me', role: 'user' }} />);
    expect((await screen.findByTestId('comments-locked')).textContent).toContain('Subscribe to read and join the conversation');
    expect(screen.getByTestId('comments-total').textContent).toBe('4');
    expect(screen.queryByTestId('comment-form')).toBeNull();
    expect(commentState('v1')).toMatchObject({ locked: 'subscription', total: 4, items: [] });
    // It had asked to watch while loading; it unwatches once locked.
    await waitFor(() => expect(lastSocket().sent('object/unwatch').map((e) => e.payload)).toEqual([{ objectType: 'video', objectId: 'v1' }]));
  });

  it('a subscription that lapsed while the page was open: the refused post shows the locked view and says why', async () => {
    render(<Comments objectType="video" objectId="v1" viewer={{ _id: 'me', role: 'user' }} initial={page([comment({ content: 'seen before' })])} />);
    await flush();
    stubFetch({ 'POST /api/comments': reply(403, lockedBody('subscription', 1)) });
    fireEvent.input(screen.getByTestId('comment-input'), { target: { value: 'too late' } });
    fireEvent.click(screen.getByTestId('comment-submit'));
    await screen.findByTestId('comments-locked');
    expect(screen.queryByText('seen before')).toBeNull();
    expect(toastTexts()).toEqual([['error', 'Subscribe to read and join the conversation']]);
  });
});

describe('reactions store and buttons', () => {
  it('toggles from the server answer and keeps counts live', async () => {
    stubFetch({ 'POST /api/reactions': reply(200, { objectType: 'video', objectId: 'v1', action: 'like', reacted: true, changed: true, count: 8 }) });
    await expect(toggleReaction('video', 'v1', 'like')).resolves.toBe(true);
    expect(reactionState('video', 'v1', 'like')).toMatchObject({ reacted: true, count: 8, pending: false });
    const { calls } = stubFetch({ 'DELETE /api/reactions': reply(200, { objectType: 'video', objectId: 'v1', action: 'like', reacted: false, changed: true, count: 7 }) });
    await toggleReaction('video', 'v1', 'like');
    expect(calls[0]!.body).toEqual({ objectType: 'video', objectId: 'v1', action: 'like' });
    expect(reactionState('video', 'v1', 'like')).toMatchObject({ reacted: false, count: 7 });
  });

  it('buttons show counts, ask what the user already has, send guests to log in', async () => {
    stubFetch({
      'GET /api/reactions/search': reply(200, { items: [{ _id: 'r1', objectType: 'video', objectId: 'v1', action: 'favourite', createdAt: 'x' }], total: 1 }),
    });
    render(<ReactionButtons objectType="video" objectId="v1" loggedIn counts={{ like: 4, favourite: 2 }} />);
    await waitFor(() => expect(screen.getByTestId('reaction-favourite').getAttribute('aria-pressed')).toBe('true'));
    expect(screen.getByTestId('reaction-like-count').textContent).toBe('4');
    expect(screen.getByTestId('reaction-watch_later')).toBeTruthy();
    connectRealtime({ loggedIn: true });
    act(() => lastSocket().serverConnect());
    act(() => lastSocket().fire('reaction/count', { objectType: 'video', objectId: 'v1', action: 'like', count: 9 }));
    expect(screen.getByTestId('reaction-like-count').textContent).toBe('9');
    cleanup();

    const nav = vi.fn();
    setNavigator(nav);
    render(<ReactionButtons objectType="post" objectId="p1" loggedIn={false} counts={{ like: 1 }} />);
    expect(screen.queryByTestId('reaction-watch_later')).toBeNull();
    fireEvent.click(screen.getByTestId('reaction-like'));
    expect(nav).toHaveBeenCalledWith(expect.stringMatching(/^\/auth\/login\?next=/));
  });
});
