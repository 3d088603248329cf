import type { MemberHeader } from '../../../common/schemas/auth.js';
import { ApiError } from '../api/error.js';
import { call } from './client.js';
import { loggedIn } from './auth.js';
import { setCurrentUser } from './user.js';
import { seedUnread } from './messages.js';
import { followBellCount } from './notifications.js';

/**
 * The header of a member-shell page (a page shown alike to every signed-in visitor, docs/architecture.md): the page
 * holds nobody's name or counts, so the header asks `GET /users/me/header` once and fills the stores the user menu
 * and the badges show. A session that turned out to be gone leaves the visitor a guest (the menu offers to log in).
 */
let asking: Promise<MemberHeader | null> | undefined;

/**
 * Asks once per page, whichever island asks first; the others wait for the same answer. Resolves to it, or null when
 * the visitor turned out to be a guest or the request failed.
 */
export function loadMemberHeader(): Promise<MemberHeader | null> {
  asking ??= call(({ auth }) => auth.header()).then(
    (header) => {
      setCurrentUser(header.user);
      loggedIn.set(true);
      seedUnread(header.unread.messages);
      followBellCount(header.unread.notifications);
      return header;
    },
    (err: unknown) => {
      if (err instanceof ApiError && err.status === 401) {
        setCurrentUser(null);
        loggedIn.set(false);
      } else asking = undefined; // a network failure is asked again by the next island that mounts
      return null;
    },
  );
  return asking;
}
