import sharp, { type Metadata } from 'sharp';
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import type { User } from '../db/schema.js';
import { newId, nowIso } from '../db/ids.js';
import { AppError, conflict, isUniqueViolation, notFound, unauthorized } from '../http/errors.js';
import { makeThumbnail, type ImageResult } from '../media/images.js';
import type { Storage } from '../media/storage.js';
import type { CurrentUser, PublicUser } from '../../common/schemas/auth.js';
import { messages as authMessages } from '../auth/auth.service.js';
import {
  deleteFileRecordsByKey,
  findUserById,
  findUserByUsername,
  memberHeaderFacts,
  searchUsers,
  updatePerformerIdentity,
  updateUser,
  usernameTaken,
  type UserSearch,
} from './users.repository.js';
import { toAdminUser, toCurrentUser, toPublicUser } from './users.mapper.js';
import type { UpdateProfileInput } from '../../common/schemas/users.js';

/** Profile rules: reading and editing one's own account, public profiles, the admin search, avatar and cover images. */

/** Larger pictures (in pixels) are refused before decoding, so a small "decompression bomb" file cannot exhaust memory. */
const MAX_INPUT_PIXELS = 40_000_000;
/** What sharp may read from an upload; SVG, PDF and raw pixel data are not accepted as profile pictures. */
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);

export type UserImageKind = 'avatar' | 'cover';

const imageSpecs: Record<UserImageKind, { width: number; height: number; prefix: string; column: 'avatarPath' | 'coverPath' }> = {
  avatar: { width: 256, height: 256, prefix: 'public/avatars', column: 'avatarPath' },
  cover: { width: 1500, height: 500, prefix: 'public/covers', column: 'coverPath' },
};

export const userMessages = {
  notAnImage: 'The file is not a supported image. Please upload a JPEG, PNG, WebP, GIF or AVIF picture.',
  imageTooManyPixels: 'The image dimensions are too large. Please upload a smaller picture.',
} as const;

export async function getCurrentUser(db: Db, userId: string): Promise<CurrentUser> {
  const user = await findUserById(db, userId);
  // The session was valid a moment ago; a user deleted since is simply signed out.
  if (!user) throw unauthorized('Please log in to continue');
  return toCurrentUser(user);
}

/**
 * Updates the fields sent (name, username, bio, country). The username shares one namespace with
 * performers; a performer account's public name and handle follow the account in the same transaction.
 */
export async function updateProfile(db: Db, userId: string, input: UpdateProfileInput): Promise<CurrentUser> {
  const user = await findUserById(db, userId);
  if (!user) throw unauthorized('Please log in to continue');
  const changes: Partial<Pick<User, 'name' | 'username' | 'bio' | 'country'>> = {};
  if (input.name !== undefined && input.name !== user.name) changes.name = input.name;
  if (input.username !== undefined && input.username !== user.username) changes.username = input.username;
  if (input.bio !== undefined) changes.bio = input.bio;
  if (input.country !== undefined) changes.country = input.country;
  if (!Object.keys(changes).length) return toCurrentUser(user);

  if (changes.username && (await usernameTaken(db, changes.username, userId))) {
    throw conflict(authMessages.usernameTaken, { field: 'username' });
  }
  try {
    await db.transaction().execute(async (trx) => {
      await updateUser(trx, userId, changes);
      if (user.role === 'performer') await updatePerformerIdentity(trx, userId, { displayName: changes.name, username: changes.username });
    });
  } catch (err) {
    // Lost a race with another account taking the same username.
    if (isUniqueViolation(err)) throw conflict(authMessages.usernameTaken, { field: 'username' });
    throw err;
  }
  return getCurrentUser(db, userId);
}

/** A public profile by id or username; unknown and suspended accounts are both "not found". */
export async function getPublicUser(db: Db, idOrUsername: string): Promise<PublicUser> {
  const user = (await findUserById(db, idOrUsername)) ?? (await findUserByUsername(db, idOrUsername));
  if (!user || user.status === 'suspended') throw notFound('User');
  return toPublicUser(user);
}

export async function searchUsersForAdmin(db: Db, query: UserSearch) {
  const { rows, total } = await searchUsers(db, query);
  return { items: rows.map(toAdminUser), total };
}

/**
 * Reads an uploaded file as an image (its type is sniffed from the bytes, whatever name or mime the client
 * declared), and renders the profile variant: avatar 256x256, cover 1500x500, both cover-cropped WebP.
 */
export async function renderUserImage(upload: Buffer, kind: UserImageKind): Promise<ImageResult> {
  let meta: Metadata;
  try {
    meta = await sharp(upload, { limitInputPixels: false }).metadata();
  } catch {
    throw new AppError(400, 'INVALID_IMAGE', userMessages.notAnImage);
  }
  if (!meta.format || !ACCEPTED_FORMATS.has(meta.format) || !meta.width || !meta.height) {
    throw new AppError(400, 'INVALID_IMAGE', userMessages.notAnImage);
  }
  if (meta.width * meta.height > MAX_INPUT_PIXELS) throw new AppError(400, 'INVALID_IMAGE', userMessages.imageTooManyPixels);
  const spec = imageSpecs[kind];
  try {
    return await makeThumbnail(upload, spec.width, spec.height, { format: 'webp', fit: 'cover', quality: 82 });
  } catch {
    // Headers parsed but the pixel data is truncated or corrupt.
    throw new AppError(400, 'INVALID_IMAGE', userMessages.notAnImage);
  }
}

/**
 * Stores a new avatar or cover of `userId` under a public key (a new name each time, so caches never serve
 * the old picture), points the account at it, then deletes the previous file. Returns the updated account.
 */
export async function replaceUserImage(
  deps: { db: Db; storage: Storage; logger: Logger },
  userId: string,
  kind: UserImageKind,
  upload: Buffer,
): Promise<CurrentUser> {
  const { db, storage, logger } = deps;
  const user = await findUserById(db, userId);
  if (!user) throw notFound('User');
  const image = await renderUserImage(upload, kind);
  const spec = imageSpecs[kind];
  const key = `${spec.prefix}/${newId()}.${image.ext}`;
  await storage.put(key, image.buffer);
  try {
    await updateUser(db, userId, { [spec.column]: key });
  } catch (err) {
    await storage.delete(key).catch(() => {});
    throw err;
  }
  const old = user[spec.column];
  // Only files this code manages are deleted; a URL or a shared default image is left alone.
  if (old && old !== key && old.startsWith(`${spec.prefix}/`)) {
    try {
      await storage.delete(old);
      await deleteFileRecordsByKey(db, userId, old);
    } catch (err) {
      logger.warn({ err, key: old }, 'old profile image could not be deleted');
    }
  }
  return getCurrentUser(db, userId);
}

/** What the member header shows a signed-in visitor besides who they are: unread counts and whether they hold anything (one statement). */
export function headerFacts(db: Db, userId: string): Promise<{ messages: number; notifications: number; holdsAny: boolean }> {
  return memberHeaderFacts(db, userId, nowIso());
}
