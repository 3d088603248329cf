import { z } from 'zod';
import { roleSchema, signupRoleSchema } from '../enums.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../account-limits.js';
import { NEXT_PATH_MAX, safeNextPath } from '../next-path.js';

/**
 * Accounts: the fields of account input (shared by the auth and users routes, with their messages), the sign-up,
 * login and password bodies, and the user as the API shows it (server/auth/auth.routes.ts, server/users).
 */

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

/** `GET /users/me` and every answer that carries the signed-in user. */
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
export type CurrentUser = z.output<typeof currentUserSchema>;

/** `GET /users/view/{id}`: what anyone may see of a user. */
export const publicUserSchema = z.object({
  _id: z.string(),
  name: z.string(),
  username: z.string(),
  avatar: z.string(),
  cover: z.string().nullable(),
  role: roleSchema,
  createdAt: z.string(),
});
export type PublicUser = z.output<typeof publicUserSchema>;

/** `{ message }` answers of the auth and verification endpoints. */
export const messageSchema = z.object({ message: z.string() });
export type MessageResponse = z.output<typeof messageSchema>;

/** `POST /auth/users/register` */
export const registerBody = z.object({
  name: nameField,
  username: usernameField,
  email: emailField,
  password: newPassword,
  role: z.enum(signupRoleSchema.options, { error: 'Role must be "user" or "performer"' }),
  /** Both must be true: the person confirms being 18 or older and accepts the terms; the times are kept on the account. */
  confirmAdult: z.literal(true, { error: 'Please confirm that you are 18 or older' }),
  acceptTerms: z.literal(true, { error: 'Please accept the terms to create an account' }),
  /** Where the visitor was going (a path on this site): the verification mail's link brings them back there. */
  next: z
    .string()
    .max(NEXT_PATH_MAX, { message: 'next must be a path on this site', abort: true })
    .refine((v) => safeNextPath(v) !== null, 'next must be a path on this site')
    .optional(),
  /** Required only when the site has reCAPTCHA configured. */
  captchaToken: z.string().max(4000).optional(),
});
export type RegisterRequest = z.input<typeof registerBody>;
export const registerResponseSchema = z.object({ message: z.string(), user: currentUserSchema });
export type RegisterResponse = z.output<typeof registerResponseSchema>;

/** `POST /auth/login` */
export const loginBody = z.object({
  /** An email address or a username. */
  email: z.string({ error: 'Email or username is required' }).trim().min(1, 'Email or username is required').max(254, 'Incorrect credentials!'),
  password: anyPassword,
  /** Off: the session and its cookie last 1 day instead of 365 (docs/product.md). */
  remember: z.boolean().default(true),
  /** Needed only when the answer was 400 CAPTCHA_REQUIRED (an account with many failed logins, on a site with reCAPTCHA). */
  captchaToken: z.string().max(4000).optional(),
});
export type LoginRequest = z.input<typeof loginBody>;
export const loginResponse = z.object({ token: z.string(), expiresAt: z.string(), user: currentUserSchema });
export type LoginResponse = z.output<typeof loginResponse>;

/** `PUT /auth/users/me/password` */
export const changePasswordBody = z.object({
  password: newPassword,
  currentPassword: anyPassword,
  /** Which settings screen the change comes from; see AuthService.changePassword. */
  source: z.enum(signupRoleSchema.options, { error: 'Source must be "user" or "performer"' }).default('user'),
});
export type ChangePasswordRequest = z.input<typeof changePasswordBody>;

/** `POST /auth/email-verification` */
export const verifyEmailBody = z.object({ token: linkToken });
/** `POST /auth/email-verification/resend` and `POST /auth/users/forgot` */
export const emailBody = z.object({ email: emailField });
/** `POST /auth/users/reset-password` */
export const resetPasswordBody = z.object({ token: linkToken, password: newPassword });
