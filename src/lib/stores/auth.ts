import { atom } from 'nanostores';
import type { LoginRequest } from '../../../common/schemas/auth.js';
import { ApiError, errorMessage } from '../api/error.js';
import { call } from './client.js';
import { navigate, sameSitePath } from '../navigation.js';
import { toast, toastOnNextPage } from './toast.js';
import { fetchCurrentUser, resetUser, setCurrentUser } from './user.js';
import { registerReset } from './reset.js';

/**
 * Auth state (docs/product.md). The session token itself is an httpOnly cookie set by the server, so
 * "token stored" happens in the login response and "token cleared" in the logout response.
 */
export type RequestStatus = 'idle' | 'requesting' | 'success' | 'error';

export const loggedIn = atom(false);
export const loginStatus = atom<RequestStatus>('idle');
export const forgotStatus = atom<RequestStatus>('idle');
/** The message of the last failed login, for the form's inline alert. */
export const loginError = atom<string | null>(null);
/** The server asked for a captcha (an account with many failed logins, on a site with reCAPTCHA): the form shows one. */
export const loginNeedsCaptcha = atom(false);

export const LOGIN_FAILED = 'Incorrect credentials!';
export const LOGGED_OUT = 'Log out!';
export const AFTER_LOGIN = '/home';
export const AFTER_LOGOUT = '/auth/login';

/** Where to go after login: a same-site `?next=` path, else /home. */
export function afterLoginUrl(): string {
  const next = typeof window === 'undefined' ? null : new URLSearchParams(window.location.search).get('next');
  return sameSitePath(next) ?? AFTER_LOGIN;
}

/**
 * requesting → success (loggedIn, current user fetched, navigate to /home or `next`) or error (loggedIn
 * false, the server's message or 'Incorrect credentials!' as a toast). Resolves to whether it succeeded.
 */
export async function login(credentials: LoginRequest): Promise<boolean> {
  loginStatus.set('requesting');
  loginError.set(null);
  try {
    const res = await call(({ auth }) => auth.login(credentials));
    loggedIn.set(true);
    setCurrentUser(res.user);
    try {
      await fetchCurrentUser();
    } catch {
      // The login answer already carries the user; a failed refresh must not undo the login.
    }
    loginStatus.set('success');
    navigate(afterLoginUrl());
    return true;
  } catch (err) {
    const message = errorMessage(err, LOGIN_FAILED);
    if (err instanceof ApiError && err.code === 'CAPTCHA_REQUIRED') loginNeedsCaptcha.set(true);
    loggedIn.set(false);
    loginStatus.set('error');
    loginError.set(message);
    toast.error(message);
    return false;
  }
}

/** Ends the session on the server (which clears the cookie), then resets auth and user state. */
export async function logout(): Promise<void> {
  try {
    await call(({ auth }) => auth.logout());
  } catch {
    // Even if the call fails the local state is cleared; the next page render re-checks the cookie.
  }
  resetAuth();
  resetUser();
  // The one message meant for the next page: the login page shows it once.
  toastOnNextPage('success', LOGGED_OUT);
  navigate(AFTER_LOGOUT);
}

/** `POST /auth/users/forgot`; resolves to the server's message, rethrows failures for the form. */
export async function forgotPassword(email: string): Promise<string> {
  forgotStatus.set('requesting');
  try {
    const { message } = await call(({ auth }) => auth.forgotPassword(email));
    forgotStatus.set('success');
    return message;
  } catch (err) {
    forgotStatus.set('error');
    throw err;
  }
}

export function resetAuth(): void {
  loggedIn.set(false);
  loginStatus.set('idle');
  forgotStatus.set('idle');
  loginError.set(null);
  loginNeedsCaptcha.set(false);
}

registerReset('auth', resetAuth);
