import { atom } from 'nanostores';
import type { ChangePasswordRequest, CurrentUser } from '../../../common/schemas/auth.js';
import type { UpdateProfileRequest } from '../../../common/schemas/users.js';
import { DEFAULT_AVATAR } from '../../../common/avatar.js';
import { errorMessage } from '../api/error.js';
import { call } from './client.js';
import { toast } from './toast.js';
import { registerReset } from './reset.js';

/**
 * The current user (docs/product.md): seeded from what the server rendered (UserMenu's `initialUser`, the
 * profile page's user) and replaced by `GET /users/me` answers. Profile and password updates raise the
 * `updating` flag and always lower it again, on success and on error (docs/product.md).
 */

/** At least the identity fields; the full CurrentUser once the API has answered. */
export type KnownUser = Pick<CurrentUser, '_id' | 'name' | 'username' | 'role' | 'avatar'> & Partial<CurrentUser>;
export type UserInput = Omit<KnownUser, 'avatar'> & { avatar?: string | null };

export const currentUser = atom<KnownUser | null>(null);
export const updating = atom(false);
/** Which image is being uploaded, if any. */
export const uploading = atom<'avatar' | 'cover' | null>(null);

export const PROFILE_UPDATED = 'Your profile has been updated.';

/** Fill in the default avatar (docs/product.md) when the user has none. */
export function withDefaultAvatar<T extends { avatar?: string | null }>(user: T): T & { avatar: string } {
  return { ...user, avatar: user.avatar || DEFAULT_AVATAR };
}

export function setCurrentUser(user: UserInput | null): void {
  currentUser.set(user ? withDefaultAvatar(user) : null);
}

export async function fetchCurrentUser(): Promise<KnownUser> {
  const me = withDefaultAvatar(await call(({ auth }) => auth.me()));
  currentUser.set(me);
  return me;
}

/** Runs a change of the account while `updating` is set; a failure is toasted and rethrown, so the form can show field messages. */
async function changeAccount<T>(failure: string, change: () => Promise<T>): Promise<T> {
  updating.set(true);
  try {
    return await change();
  } catch (err) {
    toast.error(errorMessage(err, failure));
    throw err;
  } finally {
    updating.set(false);
  }
}

/** `PUT /users`; toasts the outcome and rethrows failures so the form can show field messages. */
export async function updateProfile(changes: UpdateProfileRequest): Promise<KnownUser> {
  return changeAccount('Could not update your profile, please try again', async () => {
    const user = withDefaultAvatar(await call(({ auth }) => auth.updateProfile(changes)));
    currentUser.set(user);
    toast.success(PROFILE_UPDATED);
    return user;
  });
}

/** `PUT /auth/users/me/password`; resolves to the server's message. */
export async function updatePassword(body: ChangePasswordRequest): Promise<string> {
  return changeAccount('Could not change your password, please try again', async () => {
    const { message } = await call(({ auth }) => auth.changePassword(body));
    toast.success(message);
    return message;
  });
}

/** Multipart upload of the avatar or cover image; the answer is the updated user. */
export async function uploadUserImage(kind: 'avatar' | 'cover', file: Blob): Promise<KnownUser> {
  uploading.set(kind);
  try {
    const user = withDefaultAvatar(kind === 'avatar' ? await call(({ auth }) => auth.uploadAvatar(file)) : await call(({ auth }) => auth.uploadCover(file)));
    currentUser.set(user);
    toast.success(kind === 'avatar' ? 'Your avatar has been updated.' : 'Your cover image has been updated.');
    return user;
  } finally {
    uploading.set(null);
  }
}

export function resetUser(): void {
  currentUser.set(null);
  updating.set(false);
  uploading.set(null);
}

registerReset('user', resetUser);
