import { via } from './client.js';

/**
 * The requests of the account forms (sign-up, e-mail verification, password reset, contact) and the country list of
 * the profile form. Each form keeps its own fields, busy flag and errors (they belong to that form alone); what
 * reaches the server goes through here. The signed-in user's own data lives in `user.ts`, sign-in in `auth.ts`.
 */
export const account = {
  register: via('auth', 'register'),
  verifyEmail: via('auth', 'verifyEmail'),
  resendVerification: via('auth', 'resendVerification'),
  resetPassword: via('auth', 'resetPassword'),
  contact: via('auth', 'contact'),
  countries: via('auth', 'countries'),
  /** The public takedown form (no account needed). */
  takedown: via('auth', 'takedown'),
};
