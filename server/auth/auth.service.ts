import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { AppConfig } from '../config.js';
import type { Db, DbOrTrx } from '../db/database.js';
import type { User } from '../db/schema.js';
import { newId, nowIso } from '../db/ids.js';
import { AppError, badRequest, conflict, isUniqueViolation, tooMany } from '../http/errors.js';
import type { Mailer } from '../mail/mailer.js';
import { passwordResetMail, registrationAttemptMail, verificationMail, type MailSite } from '../mail/templates.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { CurrentUser } from '../../common/schemas/auth.js';
import type { AccountStatus, Role, SignupRole } from '../../common/enums.js';
import { DEFAULT_AVATAR } from '../../common/avatar.js';
import { publicMediaUrl } from '../media/storage.js';
import { waitInWords } from '../../common/plural.js';
import {
  findUserByEmail,
  findUserById,
  findUserByLogin,
  insertPerformerFor,
  insertUser,
  updateUser,
  usernameTaken,
} from '../users/users.repository.js';
import { toCurrentUser } from '../users/users.mapper.js';
import { hashPassword, verifyPassword } from './password.js';
import { hashToken, looksLikeToken, newSecretToken } from './tokens.js';
import type { LoginFailures } from './login-failures.js';
import type { CaptchaService } from '../captcha/captcha.service.js';
import type { SessionCache } from './session-cache.js';
import {
  consumeAuthToken,
  deleteDeadSessions,
  findAuthToken,
  findLiveSession,
  insertAuthToken,
  insertSession,
  revokeSession,
  revokeAuthTokens,
  revokeUserSessions,
  touchSession,
  type TokenPurpose,
} from './auth.repository.js';
import { DAY_MS } from '../../common/time.js';

/** Who is signed in on a request: what routes and pages need, without another query. */
export interface SessionUser {
  id: string;
  role: Role;
  status: AccountStatus;
  sessionId: string;
  email: string;
  name: string;
  username: string;
  /** Public URL of the avatar, or the default image. */
  avatar: string;
}

/** Session lifetime (docs/product.md, Sessions): 365 days by default, 1 day when "remember me" is off. */
export const SESSION_TTL_MS = { remember: 365 * DAY_MS, short: DAY_MS } as const;
export const VERIFY_EMAIL_TTL_MS = 48 * 60 * 60 * 1000;
export const RESET_PASSWORD_TTL_MS = 60 * 60 * 1000;
/** `last_seen_at` is written at most this often per session, not on every request. */
const TOUCH_EVERY_MS = 5 * 60 * 1000;

export const messages = {
  registered: 'Thank you for signing up! Please check your inbox and follow the link to verify your email address.',
  invalidCredentials: 'Incorrect credentials!',
  suspended: 'Your account has been suspended. Please contact support.',
  verified: 'Your email address has been verified.',
  resendSent: 'If this email belongs to an account that still needs verification, a new verification link is on its way.',
  forgotSent: 'If this email belongs to an account, a link to reset the password is on its way. It is valid for 1 hour.',
  passwordReset: 'Your password has been changed. Please log in with your new password.',
  passwordChanged: 'Your password has been changed. Other devices have been signed out.',
  wrongCurrentPassword: 'Your current password is incorrect.',
  usernameTaken: 'This username is already taken.',
  tokenInvalid: 'This link is invalid. Please request a new one.',
  tokenUsed: 'This link has already been used. Please request a new one.',
  tokenExpired: 'This link has expired. Please request a new one.',
  notPerformer: 'Only performer accounts can change a performer password (use source "user").',
  captchaRequired: 'Please complete the captcha to log in.',
  captchaFailed: 'Captcha verification failed, please try again.',
} as const;

export interface RegisterInput {
  name: string;
  username: string;
  email: string;
  password: string;
  role: SignupRole;
}

export interface LoginInput {
  /** Email or username. */
  identifier: string;
  password: string;
  remember: boolean;
}

export interface LoginResult {
  token: string;
  expiresAt: string;
  maxAgeSec: number;
  user: CurrentUser;
}

export interface AuthServiceDeps {
  db: Db;
  config: AppConfig;
  settings: SettingsService;
  mailer: Mailer;
  failures: LoginFailures;
  /** Asked for on the logins of an account under attack, when the site has a captcha configured. */
  captcha?: CaptchaService;
  logger: Logger;
  /** Sessions kept in memory between requests (server/auth/session-cache.ts); absent: read every time. */
  sessions?: SessionCache;
}

/**
 * Accounts and sessions. Session tokens and mailed tokens are 32 random bytes given to the client;
 * only their SHA-256 is stored. `authenticate()` keeps sessions in memory briefly (server/auth/session-cache.ts),
 * dropped by the database's own notice of any change, so a logout, a password change or a suspension still takes
 * effect on the very next request. See server/auth/README.md.
 */
export class AuthService {
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly deps: AuthServiceDeps) {}

  private get db(): Db {
    return this.deps.db;
  }

  private async site(): Promise<MailSite> {
    return { siteName: await this.deps.settings.get('siteName'), publicUrl: this.deps.config.publicUrl };
  }

  /** The session behind a token, or null (unknown, revoked, expired, or its user suspended). */
  async authenticate(token: string | null | undefined): Promise<SessionUser | null> {
    if (!looksLikeToken(token)) return null;
    const now = new Date();
    const tokenHash = hashToken(token);
    const { sessions } = this.deps;
    let row = sessions?.get(tokenHash, now.getTime());
    if (!row) {
      const begun = sessions?.begin() ?? 0;
      row = await findLiveSession(this.db, tokenHash, now.toISOString());
      if (!row) return null;
      sessions?.keep(tokenHash, row, begun, now.getTime());
    }
    if (!row.lastSeenAt || now.getTime() - Date.parse(row.lastSeenAt) > TOUCH_EVERY_MS) {
      await touchSession(this.db, row.sessionId, now.toISOString());
    }
    return { id: row.id, role: row.role, status: row.status, sessionId: row.sessionId, email: row.email, name: row.name, username: row.username, avatar: publicMediaUrl(row.avatarPath) ?? DEFAULT_AVATAR };
  }

  /**
   * Creates the account (and its performer row) and mails a verification link. When the email already has
   * an account nothing is created: the owner gets a "someone tried to register" mail and the caller gets the
   * same answer as a real registration, so the endpoint does not tell whether an email is registered.
   */
  async register(input: RegisterInput, opts: { next?: string | null } = {}): Promise<CurrentUser> {
    if (await usernameTaken(this.db, input.username)) throw conflict(messages.usernameTaken, { field: 'username' });
    // Hash before looking at the email, so both paths cost the same.
    const passwordHash = await hashPassword(input.password);
    const now = nowIso();
    const row: User = {
      id: newId(),
      email: input.email,
      username: input.username,
      name: input.name,
      passwordHash,
      role: input.role,
      status: 'active',
      emailVerified: 0,
      avatarPath: null,
      coverPath: null,
      country: null,
      bio: null,
      // Only the sign-up route calls this, and its schema requires both confirmations.
      termsAcceptedAt: now,
      adultConfirmedAt: now,
      deletedAt: null,
      createdAt: now,
      updatedAt: now,
    };

    const existing = await findUserByEmail(this.db, input.email);
    if (existing) return this.registrationAttempt(existing, row);

    let token: string;
    try {
      token = await this.db.transaction().execute(async (trx) => {
        await insertUser(trx, row);
        if (row.role === 'performer') await insertPerformerFor(trx, row);
        return this.issueToken(trx, row.id, 'verify-email', VERIFY_EMAIL_TTL_MS);
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Lost a race with a concurrent registration: decide which key collided.
      const raced = await findUserByEmail(this.db, input.email);
      if (raced) return this.registrationAttempt(raced, row);
      throw conflict(messages.usernameTaken, { field: 'username' });
    }
    this.deps.mailer.queue(verificationMail(await this.site(), row, token, opts.next));
    return toCurrentUser(row);
  }

  private async registrationAttempt(owner: User, attempted: User): Promise<CurrentUser> {
    this.deps.mailer.queue(registrationAttemptMail(await this.site(), owner));
    // The same shape a real registration answers, built from what was submitted; nothing is stored.
    return toCurrentUser(attempted);
  }

  /**
   * Failures are counted per (account, client IP) (LoginFailures): past the limit that pair waits longer after each
   * failure (429 with Retry-After), while the same account from another address is not slowed. Once the account
   * has many failures from anywhere, a site with a captcha configured asks for one on each login of that account.
   */
  async login(input: LoginInput, meta: { ip: string | null; userAgent: string | null; captchaToken?: string }): Promise<LoginResult> {
    const identifier = input.identifier.trim().toLowerCase();
    const ip = meta.ip ?? '';
    const user = await findUserByLogin(this.db, identifier);
    // Failures of an existing account are counted per account, whichever identifier (email or username) is used.
    const failureKey = user ? `user:${user.id}` : `login:${identifier}`;
    const gate = await this.deps.failures.check(failureKey, ip);
    if (gate.waitSec > 0) throw tooMany(`Too many failed login attempts. Please try again in ${waitInWords(gate.waitSec)}.`, gate.waitSec);
    if (gate.accountFailures >= this.deps.config.authLimits.loginFailures.max && this.deps.captcha && (await this.deps.captcha.enabled())) {
      if (!meta.captchaToken) throw new AppError(400, 'CAPTCHA_REQUIRED', messages.captchaRequired);
      if (!(await this.deps.captcha.verify(meta.captchaToken, ip || undefined)).success) throw new AppError(400, 'CAPTCHA_REQUIRED', messages.captchaFailed);
    }

    // An unknown identifier still costs one argon2 verification, so timing does not tell whether it exists.
    let ok = false;
    if (user) ok = await verifyPassword(user.passwordHash, input.password);
    else await verifyPassword(await this.getDummyHash(), input.password);
    if (!user || !ok) {
      await this.deps.failures.recordFailure(failureKey, ip);
      throw new AppError(400, 'INVALID_CREDENTIALS', messages.invalidCredentials);
    }
    if (user.status === 'suspended') throw new AppError(403, 'ACCOUNT_SUSPENDED', messages.suspended);
    await this.deps.failures.clear(failureKey, ip);

    const token = newSecretToken();
    const ttl = input.remember ? SESSION_TTL_MS.remember : SESSION_TTL_MS.short;
    const now = new Date();
    const expiresAt = new Date(now.getTime() + ttl).toISOString();
    await deleteDeadSessions(this.db, user.id, now.toISOString());
    await insertSession(this.db, {
      userId: user.id,
      tokenHash: hashToken(token),
      remember: input.remember,
      expiresAt,
      ip: meta.ip,
      userAgent: meta.userAgent ? meta.userAgent.slice(0, 255) : null,
    });
    return { token, expiresAt, maxAgeSec: Math.floor(ttl / 1000), user: toCurrentUser(user) };
  }

  async logout(sessionId: string): Promise<void> {
    await revokeSession(this.db, sessionId);
  }

  async verifyEmail(token: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const row = await this.useToken(trx, token, 'verify-email');
      await updateUser(trx, row.userId, { emailVerified: 1 });
    });
  }

  /** Mails a fresh verification link when the account exists and is unverified; the caller answers the same either way. */
  async resendVerification(email: string): Promise<void> {
    const user = await findUserByEmail(this.db, email);
    if (!user || user.emailVerified || user.status === 'suspended') return;
    const token = await this.issueToken(this.db, user.id, 'verify-email', VERIFY_EMAIL_TTL_MS);
    this.deps.mailer.queue(verificationMail(await this.site(), user, token));
  }

  /** Mails a reset link when the account exists; the caller answers the same either way. */
  async forgotPassword(email: string): Promise<void> {
    const user = await findUserByEmail(this.db, email);
    if (!user || user.status === 'suspended') return;
    const token = await this.issueToken(this.db, user.id, 'reset-password', RESET_PASSWORD_TTL_MS);
    this.deps.mailer.queue(passwordResetMail(await this.site(), user, token));
  }

  /**
   * Sets the password from a mailed link, uses up every reset link of the account, and signs out every session
   * of the account (whoever held one may be who the owner is locking out). Returns the account's id, so the
   * caller can drop its realtime connections.
   */
  async resetPassword(token: string, password: string): Promise<string> {
    const passwordHash = await hashPassword(password);
    const userId = await this.db.transaction().execute(async (trx) => {
      const row = await this.useToken(trx, token, 'reset-password');
      // Following a link mailed to the address also proves the address is the user's.
      await updateUser(trx, row.userId, { passwordHash, emailVerified: 1 });
      await revokeAuthTokens(trx, row.userId, 'reset-password');
      await revokeUserSessions(trx, row.userId);
      return row.userId;
    });
    await this.deps.failures.clearAccount(`user:${userId}`);
    return userId;
  }

  /**
   * Changes the password of the signed-in account after checking the current one, uses up outstanding reset
   * links, and signs out every other session (this one stays valid). `source` is the settings screen the request comes from; accounts
   * are one login per person, so both change the same password, but 'performer' is refused for a
   * non-performer account so a confused client cannot act on the wrong kind of account.
   */
  async changePassword(session: SessionUser, input: { currentPassword: string; password: string; source: SignupRole }): Promise<void> {
    if (input.source === 'performer' && session.role !== 'performer') throw badRequest(messages.notPerformer);
    const user = await findUserById(this.db, session.id);
    if (!user || !(await verifyPassword(user.passwordHash, input.currentPassword))) {
      throw new AppError(400, 'WRONG_PASSWORD', messages.wrongCurrentPassword);
    }
    const passwordHash = await hashPassword(input.password);
    await this.db.transaction().execute(async (trx) => {
      await updateUser(trx, user.id, { passwordHash });
      // A reset link mailed before the change (maybe requested by whoever knew the old password) must not undo it.
      await revokeAuthTokens(trx, user.id, 'reset-password');
      await revokeUserSessions(trx, user.id, session.sessionId);
    });
  }

  private async issueToken(db: DbOrTrx, userId: string, purpose: TokenPurpose, ttlMs: number): Promise<string> {
    const token = newSecretToken();
    await insertAuthToken(db, { userId, purpose, tokenHash: hashToken(token), expiresAt: new Date(Date.now() + ttlMs).toISOString() });
    return token;
  }

  /** Checks a mailed token and marks it used, or throws a 400 saying what is wrong with it. */
  private async useToken(db: DbOrTrx, token: string, purpose: TokenPurpose) {
    if (!looksLikeToken(token)) throw new AppError(400, 'TOKEN_INVALID', messages.tokenInvalid);
    const row = await findAuthToken(db, hashToken(token), purpose);
    if (!row) throw new AppError(400, 'TOKEN_INVALID', messages.tokenInvalid);
    if (row.usedAt) throw new AppError(400, 'TOKEN_USED', messages.tokenUsed);
    const now = nowIso();
    if (row.expiresAt <= now) throw new AppError(400, 'TOKEN_EXPIRED', messages.tokenExpired);
    if (!(await consumeAuthToken(db, row.id, now))) throw new AppError(400, 'TOKEN_USED', messages.tokenUsed);
    return row;
  }

  private getDummyHash(): Promise<string> {
    this.dummyHash ??= hashPassword(randomBytes(24).toString('base64url'));
    return this.dummyHash;
  }
}
