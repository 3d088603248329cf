import { map } from 'nanostores';
import type { MemberHeader, PerformerViewer } from '../../../common/schemas/member-shell.js';
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
 * user menu and the badges show; and on a performer's page (the page names the performer: `data-member-performer`)
 * the visitor's own state there, for its follow, message and subscribe controls. A session that turned out to be gone
 * leaves the visitor a guest (the menu offers to log in).
 */
let asking: Promise<MemberHeader | null> | undefined;

/**
 * The visitor's state on performers' pages, by performer id: the answer, `'guest'` when the session turned out to be
 * gone, `'failed'` when the request failed or the page is not open to them (the controls offer to try again).
 */
export type PerformerViewerState = PerformerViewer | 'guest' | 'failed';
export const performerViewers = map<Record<string, PerformerViewerState | undefined>>({});

/** The performer whose page this is, as the page names it, if it is a member-shell performer page. */
function pagePerformer(): string | undefined {
  return typeof document === 'undefined' ? undefined : (document.querySelector<HTMLElement>('[data-member-performer]')?.dataset.memberPerformer ?? undefined);
}

/**
 * Asks once per page, whichever island asks first; the others wait for the same answer. Resolves to it, or null when
 * the visitor turned out to be a guest or the request failed.
 */
export function loadMemberHeader(): Promise<MemberHeader | null> {
  const performer = pagePerformer();
  const settle = (state: PerformerViewerState) => {
    if (performer) performerViewers.setKey(performer, state);
  };
  asking ??= call(({ auth }) => auth.header(performer ? { performer } : {})).then(
    (header) => {
      setCurrentUser(header.user);
      loggedIn.set(true);
      seedUnread(header.unread.messages);
      followBellCount(header.unread.notifications);
      settle(header.performer ?? 'failed');
      return header;
    },
    (err: unknown) => {
      if (err instanceof ApiError && err.status === 401) {
        setCurrentUser(null);
        loggedIn.set(false);
        settle('guest');
      } else {
        asking = undefined; // a network failure is asked again by the next island that mounts
        settle('failed');
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

/** After a failure: asks again (the header with it). */
export function retryMemberHeader(): Promise<MemberHeader | null> {
  asking = undefined;
  return loadMemberHeader();
}

registerReset('member-header', () => {
  asking = undefined;
  performerViewers.set({});
});
