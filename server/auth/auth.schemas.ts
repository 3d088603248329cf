import { z } from 'zod';

/**
 * Validation of account input, shared by the auth and users routes. Pure zod with no server imports,
 * so browser code may import it to validate forms with the same rules and messages.
 */

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const PASSWORD_POLICY_MESSAGE = `Password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long and contain at least one letter and one digit`;

/** A new password: 8..128 characters with at least one letter and one digit. */
export const newPassword = z
  .string({ error: 'Password is required' })
  .min(PASSWORD_MIN, PASSWORD_POLICY_MESSAGE)
  .max(PASSWORD_MAX, PASSWORD_POLICY_MESSAGE)
  .refine((p) => /\p{L}/u.test(p) && /\p{Nd}/u.test(p), PASSWORD_POLICY_MESSAGE);

/** A password being checked (login, current password): only bounded, never policy-checked (older passwords stay valid). */
export const anyPassword = z.string({ error: 'Password is required' }).min(1, 'Password is required').max(1024, 'Password is too long');

/** Emails are stored lower-cased, so uniqueness and look-ups are case-insensitive on both engines. */
export const emailField = z
  .string({ error: 'Email is required' })
  .trim()
  .toLowerCase()
  .max(254, 'Email must be at most 254 characters')
  .pipe(z.email('A valid email address is required'));

export const USERNAME_MESSAGE = 'Username must be 3 to 30 characters: lowercase letters, digits, "_" or "."';
const RESERVED_USERNAMES = new Set(['admin', 'administrator', 'root', 'support', 'system', 'api', 'auth', 'login', 'logout', 'me', 'null', 'undefined', 'www', 'mail', 'help', 'staff', 'moderator']);

/** Usernames are lower-case `[a-z0-9_.]{3,30}`; upper-case input is folded to lower case first. */
export const usernameField = z
  .string({ error: 'Username is required' })
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9_.]{3,30}$/, USERNAME_MESSAGE)
  .refine((u) => !RESERVED_USERNAMES.has(u), 'This username is not available');

export const nameField = z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(100, 'Name must be at most 100 characters');

/** A token from a mailed link. */
export const linkToken = z.string({ error: 'Token is required' }).trim().min(1, 'Token is required').max(200, 'Invalid token');

export const roleSchema = z.enum(['user', 'performer', 'admin']);

export const currentUserSchema = z.object({
  _id: z.string(),
  name: z.string(),
  username: z.string(),
  email: z.string(),
  avatar: z.string(),
  cover: z.string().nullable(),
  role: roleSchema,
  emailVerified: z.boolean(),
  country: z.string().nullable(),
  bio: z.string().nullable(),
  createdAt: z.string(),
});

export const publicUserSchema = z.object({
  _id: z.string(),
  name: z.string(),
  username: z.string(),
  avatar: z.string(),
  cover: z.string().nullable(),
  role: roleSchema,
  createdAt: z.string(),
});

export const messageSchema = z.object({ message: z.string() });
