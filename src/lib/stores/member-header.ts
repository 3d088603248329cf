import { map } from 'nanostores';
import type { MemberHeader, PerformerViewer, VideoViewer } from '../../../common/schemas/member-shell.js';
import { toFeedCard, type FeedCardPage } from '../feed-cards.js';
import { ApiError } from '../api/error.js';
import { call } from './client.js';
import { loggedIn } from './auth.js';
import { setCurrentUser } from './user.js';
import { seedUnread } from './messages.js';
import { followBellCount } from './notifications.js';
import { registerReset } from './reset.js';

/**
 * What a member-shell page (a page shown alike to every signed-in visitor, docs/architecture.md) asks for the
 * visitor, in one request, `GET /users/me/header`: who is signed in and their unread counts, which fill the stores the
 * user menu and the badges show; on a performer's or a video's page (the page names it: `data-member-performer`,
 * `data-member-video`) the visitor's own state there, for its controls; on the home feed (`data-member-feed`, its page
 * size) the feed's first page. A session that turned out to be gone leaves the visitor a guest (the menu offers to
 * log in).
 */
let asking: Promise<MemberHeader | null> | undefined;

/**
 * The visitor's state on a page, by the page's performer or video id: the answer, `'guest'` when the session turned
 * out to be gone, `'failed'` when the request failed or the page is not open to them (the controls offer to try again).
 */
export type ViewerState<T> = T | 'guest' | 'failed';
export type PerformerViewerState = ViewerState<PerformerViewer>;
export type VideoViewerState = ViewerState<VideoViewer>;
export const performerViewers = map<Record<string, PerformerViewerState | undefined>>({});
export const videoViewers = map<Record<string, VideoViewerState | undefined>>({});
/** The feed's first page by its page size, cut to the cards' fields. */
export type FeedPageState = ViewerState<FeedCardPage>;
export const feedPages = map<Record<string, FeedPageState | undefined>>({});

const PAGE_ATTRIBUTES = { memberPerformer: 'data-member-performer', memberVideo: 'data-member-video', memberFeed: 'data-member-feed' } as const;

/** What a member-shell page names for its own state (`data-member-performer`, `data-member-video`, `data-member-feed`). */
function pageNames(attribute: keyof typeof PAGE_ATTRIBUTES): string | undefined {
  if (typeof document === 'undefined') return undefined;
  return document.querySelector<HTMLElement>(`[${PAGE_ATTRIBUTES[attribute]}]`)?.dataset[attribute] ?? undefined;
}

/**
 * Asks once per page, whichever island asks first; the others wait for the same answer. Resolves to it, or null when
 * the visitor turned out to be a guest or the request failed.
 */
export function loadMemberHeader(): Promise<MemberHeader | null> {
  const performer = pageNames('memberPerformer');
  const video = pageNames('memberVideo');
  const feed = pageNames('memberFeed');
  const settle = (performerState: PerformerViewerState, videoState: VideoViewerState, feedState: FeedPageState) => {
    if (performer) performerViewers.setKey(performer, performerState);
    if (video) videoViewers.setKey(video, videoState);
    if (feed) feedPages.setKey(feed, feedState);
  };
  const query = { ...(performer ? { performer } : {}), ...(video ? { video } : {}), ...(feed ? { feed: Number(feed) } : {}) };
  asking ??= call(({ auth }) => auth.header(query)).then(
    (header) => {
      setCurrentUser(header.user);
      loggedIn.set(true);
      seedUnread(header.unread.messages);
      followBellCount(header.unread.notifications);
      const first = header.feed ? { ...header.feed, items: header.feed.items.map(toFeedCard) } : 'failed';
      settle(header.performer ?? 'failed', header.video ?? 'failed', first);
      return header;
    },
    (err: unknown) => {
      if (err instanceof ApiError && err.status === 401) {
        setCurrentUser(null);
        loggedIn.set(false);
        settle('guest', 'guest', 'guest');
      } else {
        asking = undefined; // a network failure is asked again by the next island that mounts
        settle('failed', 'failed', 'failed');
      }
      return null;
    },
  );
  return asking;
}

/** The state as the page rendered it for the visitor (not a member shell). */
export function seedPerformerViewer(state: PerformerViewer): void {
  if (!performerViewers.get()[state.performerId]) performerViewers.setKey(state.performerId, state);
}

/** The video state as the page rendered it for the visitor (not a member shell). */
export function seedVideoViewer(state: VideoViewer): void {
  if (!videoViewers.get()[state.videoId]) videoViewers.setKey(state.videoId, state);
}

/** The feed's first page as the page rendered it for the visitor (not a member shell). */
export function seedFeedPage(pageSize: number, page: FeedCardPage): void {
  if (!feedPages.get()[pageSize]) feedPages.setKey(String(pageSize), page);
}

/** After a failure: asks again (the header with it). */
export function retryMemberHeader(): Promise<MemberHeader | null> {
  asking = undefined;
  return loadMemberHeader();
}

registerReset('member-header', () => {
  asking = undefined;
  performerViewers.set({});
  videoViewers.set({});
  feedPages.set({});
});
