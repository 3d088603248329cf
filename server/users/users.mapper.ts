import type { User } from '../db/schema.js';
import { publicMediaUrl } from '../media/storage.js';
import type { CurrentUser, PublicUser } from '../../common/schemas/auth.js';
import { DEFAULT_AVATAR } from '../../common/avatar.js';

/** Row → the shapes the API answers (common/schemas/auth.ts, users.ts). */

export function toCurrentUser(u: User): CurrentUser {
  return {
    _id: u.id,
    name: u.name,
    username: u.username,
    email: u.email,
    avatar: publicMediaUrl(u.avatarPath) ?? DEFAULT_AVATAR,
    cover: publicMediaUrl(u.coverPath),
    role: u.role,
    emailVerified: Boolean(u.emailVerified),
    country: u.country,
    bio: u.bio,
    createdAt: u.createdAt,
  };
}

export function toPublicUser(u: User): PublicUser {
  return {
    _id: u.id,
    name: u.name,
    username: u.username,
    avatar: publicMediaUrl(u.avatarPath) ?? DEFAULT_AVATAR,
    cover: publicMediaUrl(u.coverPath),
    role: u.role,
    createdAt: u.createdAt,
  };
}

/** What an admin sees in `GET /users/search`: the current-user shape plus the account status. */
export function toAdminUser(u: User): CurrentUser & { status: User['status']; updatedAt: string } {
  return { ...toCurrentUser(u), status: u.status, updatedAt: u.updatedAt };
}
