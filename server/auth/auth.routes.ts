import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { requireUser, SESSION_COOKIE, sessionCookieOptions } from '../http/auth.js';
import { byBodyField, byIp, limiter } from '../http/rate-limit.js';
import { apiErrorSchema } from '../../common/schemas/http.js';
import {
  changePasswordBody, emailBody, loginBody, loginResponse, messageSchema, registerBody, registerResponseSchema, resetPasswordBody, verifyEmailBody,
} from '../../common/schemas/auth.js';
import { messages } from './auth.service.js';
import { safeNextPath } from '../../common/next-path.js';
import { route } from '../http/route.js';

// request.protocol honours X-Forwarded-Proto only from a trusted proxy (TRUST_PROXY).
const cookieOptions = (request: FastifyRequest, publicUrl: string) => sessionCookieOptions(publicUrl, request.protocol === 'https');

function setSessionCookie(request: FastifyRequest, reply: FastifyReply, publicUrl: string, token: string, maxAgeSec: number): void {
  reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions(request, publicUrl), maxAge: maxAgeSec, expires: new Date(Date.now() + maxAgeSec * 1000) });
}

const byAccount = byBodyField('email');
const accountAndIp = (request: FastifyRequest) => {
  const account = byAccount(request);
  return account ? `${account}|${request.ip}` : undefined;
};

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 409: apiErrorSchema, 429: apiErrorSchema };

export async function authRoutes(app: ApiApp): Promise<void> {
  const { auth, config } = app.ctx;
  const limits = config.authLimits;
  const tooManyLogins = 'Too many login attempts, please try again later';
  const tooManyMails = 'Too many requests, please try again later';
  // The routes that mail an address: per network, then per address asked for.
  const mailLimits = {
    onRequest: [limiter(app, 'email-ip', limits.emailPerIp, byIp, tooManyMails)],
    preHandler: [limiter(app, 'email-account', limits.emailPerAccount, byBodyField('email'), tooManyMails)],
  };

  app.post(
    '/auth/users/register',
    {
      ...route({
        access: 'public',
        tags: ['auth'],
        summary: 'Create a user or performer account and mail a verification link',
        description:
          'Always answers 201 with the same message for a valid request. When the email already has an account, nothing is created and its owner is mailed instead, so this endpoint does not reveal whether an email is registered. A taken username answers 409. `confirmAdult` and `acceptTerms` must both be true (400 otherwise, nothing written); `next`, a path on this site, is carried by the verification link.',
        body: registerBody,
        response: { 201: registerResponseSchema, ...errors },
      }),
      onRequest: [limiter(app, 'register-ip', limits.registerPerIp, byIp, 'Too many sign-ups from this network, please try again later')],
      preHandler: [limiter(app, 'register-account', limits.registerPerAccount, byBodyField('email'), tooManyMails)],
    },
    async (request, reply) => {
      const { captchaToken, confirmAdult: _adult, acceptTerms: _terms, next, ...input } = request.body;
      await app.ctx.captcha.require(captchaToken, request.ip);
      // The schema refused the request unless both were confirmed: the account records when.
      const user = await auth.register(input, { next: safeNextPath(next) });
      return reply.status(201).send({ message: messages.registered, user });
    },
  );

  app.post(
    '/auth/login',
    {
      ...route({
        access: 'public',
        tags: ['auth'],
        summary: 'Log in with email or username; sets the `token` cookie and returns the token',
        description:
          'Wrong email and wrong password both answer 400 "Incorrect credentials!" (never 401, which the browser treats as an expired session). After too many failures for one account from one address, that address waits longer after each failure: 429 with Retry-After; other addresses are not affected. When the account has many failures from anywhere and the site has reCAPTCHA configured: 400 CAPTCHA_REQUIRED until the request carries `captchaToken`. Suspended accounts: 403.',
        body: loginBody,
        response: { 200: loginResponse, ...errors },
      }),
      onRequest: [limiter(app, 'login-ip', limits.loginPerIp, byIp, tooManyLogins)],
      // Per account AND address: a per-account budget alone would let anyone who knows an email lock its owner out.
      preHandler: [limiter(app, 'login-account', limits.loginPerAccount, accountAndIp, tooManyLogins)],
    },
    async (request, reply) => {
      const result = await auth.login(
        { identifier: request.body.email, password: request.body.password, remember: request.body.remember },
        { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, captchaToken: request.body.captchaToken },
      );
      setSessionCookie(request, reply, config.publicUrl, result.token, result.maxAgeSec);
      reply.header('cache-control', 'no-store');
      return { token: result.token, expiresAt: result.expiresAt, user: result.user };
    },
  );

  app.post(
    '/auth/logout',
    route({
      access: 'public',
      tags: ['auth'],
      summary: 'End the current session (server-side) and clear the cookie; 204 even without a session',
      response: { 204: z.null().describe('No content'), ...errors },
    }),
    async (request, reply) => {
      if (request.user) {
        await auth.logout(request.user.sessionId);
        // Sockets opened with this session lose its rights now (user room, locked items' comment rooms).
        app.ctx.realtime.disconnectSession(request.user.sessionId);
      }
      reply.clearCookie(SESSION_COOKIE, cookieOptions(request, config.publicUrl));
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/auth/email-verification',
    route({
      access: 'public',
      tags: ['auth'],
      summary: 'Verify an email address with the token from the mailed link (single use, 48 hours)',
      body: verifyEmailBody,
      response: { 200: messageSchema, ...errors },
    }),
    async (request) => {
      await auth.verifyEmail(request.body.token);
      return { message: messages.verified };
    },
  );

  app.post(
    '/auth/email-verification/resend',
    {
      ...route({
        access: 'public',
        tags: ['auth'],
        summary: 'Mail a new verification link; the same answer whether or not the email exists or is verified',
        body: emailBody,
        response: { 200: messageSchema, ...errors },
      }),
      ...mailLimits,
    },
    async (request) => {
      await auth.resendVerification(request.body.email);
      return { message: messages.resendSent };
    },
  );

  app.post(
    '/auth/users/forgot',
    {
      ...route({
        access: 'public',
        tags: ['auth'],
        summary: 'Mail a password reset link (1 hour, single use); the same answer whether or not the email exists',
        body: emailBody,
        response: { 200: messageSchema, ...errors },
      }),
      ...mailLimits,
    },
    async (request) => {
      await auth.forgotPassword(request.body.email);
      return { message: messages.forgotSent };
    },
  );

  app.post(
    '/auth/users/reset-password',
    {
      ...route({
        access: 'public',
        tags: ['auth'],
        summary: 'Set a new password with the token from the reset link; signs out every session of the account',
        body: resetPasswordBody,
        response: { 200: messageSchema, ...errors },
      }),
      onRequest: [limiter(app, 'reset-ip', limits.loginPerIp, byIp, tooManyMails)],
    },
    async (request) => {
      const userId = await auth.resetPassword(request.body.token, request.body.password);
      // Every session ended: so do the sockets opened with them.
      app.ctx.realtime.disconnectUser(userId);
      return { message: messages.passwordReset };
    },
  );

  app.put(
    '/auth/users/me/password',
    {
      ...route({
        access: 'session',
        tags: ['auth'],
        summary: 'Change the password of the signed-in account; other sessions are signed out, this one stays',
        description:
          '`source` ("user" | "performer", default "user") names the settings screen the change comes from. Accounts are one login per person, so both change the same password; "performer" is refused (400) for an account that is not a performer.',
        body: changePasswordBody,
        response: { 200: messageSchema, ...errors },
      }),
      preHandler: [limiter(app, 'password-change', limits.passwordChangePerUser, (r) => r.user?.id, 'Too many password change attempts, please try again later')],
    },
    async (request) => {
      const user = requireUser(request);
      await auth.changePassword(user, request.body);
      // The other sessions ended: so do the sockets opened with them.
      app.ctx.realtime.disconnectOtherSessions(user.id, user.sessionId);
      return { message: messages.passwordChanged };
    },
  );
}
