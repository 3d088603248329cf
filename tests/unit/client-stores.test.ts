// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_AVATAR } from '../../common/avatar.js';
import { setNavigator } from '../../src/lib/navigation.js';
import { forgotPassword, forgotStatus, loggedIn, login, loginError, loginStatus, logout, type RequestStatus } from '../../src/lib/stores/auth.js';
import { currentUser, setCurrentUser, updatePassword, updateProfile, updating, uploadUserImage, uploading } from '../../src/lib/stores/user.js';
import { toasts, toast, toastOnNextPage, TOAST_STORAGE_KEY } from '../../src/lib/stores/toast.js';
import { pageError, redirectToError, takePageError, PAGE_ERROR_STORAGE_KEY } from '../../src/lib/stores/error.js';
import { DEFAULT_UI, hydrateUi, setTheme, ui, UI_STORAGE_PREFIX } from '../../src/lib/stores/ui.js';
import { resetAll } from '../../src/lib/stores/reset.js';
import { reply, sampleUser, setPageJson, stubFetch } from './client-helpers.js';

const navigate = vi.fn();
const toastTexts = () => toasts.get().map((t) => [t.type, t.message]);
const credentials = { email: 'ada@example.com', password: 'demo-password-123', remember: true };

beforeEach(() => {
  navigate.mockReset();
  setNavigator(navigate);
  localStorage.clear();
  sessionStorage.clear();
  document.head.innerHTML = '';
  window.history.replaceState(null, '', '/auth/login');
  resetAll();
});
afterEach(() => {
  vi.unstubAllGlobals();
  setNavigator();
});

describe('auth.login', () => {
  it('requesting → success: loggedIn, current user fetched from /users/me, navigate to /home', async () => {
    const me = { ...sampleUser, name: 'Ada (fresh)' };
    const { calls } = stubFetch({
      'POST /api/auth/login': reply(200, { token: 't'.repeat(43), expiresAt: '2027-01-01T00:00:00.000Z', user: sampleUser }),
      'GET /api/users/me': reply(200, me),
    });
    const seen: RequestStatus[] = [];
    const unlisten = loginStatus.listen((s) => seen.push(s));
    await expect(login(credentials)).resolves.toBe(true);
    unlisten();

    expect(seen).toEqual(['requesting', 'success']);
    expect(loggedIn.get()).toBe(true);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /api/auth/login', 'GET /api/users/me']);
    expect(calls[0]!.body).toEqual(credentials);
    expect(currentUser.get()).toMatchObject({ _id: 'u1', name: 'Ada (fresh)' });
    expect(navigate).toHaveBeenCalledWith('/home');
    expect(toasts.get()).toEqual([]);
  });

  it('goes to a same-site ?next= path instead of /home', async () => {
    window.history.replaceState(null, '', '/auth/login?next=%2Faccount%2Fprofile%3Ftab%3D1');
    stubFetch({ 'POST /api/auth/login': reply(200, { token: 't', expiresAt: 'x', user: sampleUser }), 'GET /api/users/me': reply(200, sampleUser) });
    await login(credentials);
    expect(navigate).toHaveBeenCalledWith('/account/profile?tab=1');
  });

  it.each(['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)'])('ignores an off-site next=%s', async (next) => {
    window.history.replaceState(null, '', `/auth/login?next=${encodeURIComponent(next)}`);
    stubFetch({ 'POST /api/auth/login': reply(200, { token: 't', expiresAt: 'x', user: sampleUser }), 'GET /api/users/me': reply(200, sampleUser) });
    await login(credentials);
    expect(navigate).toHaveBeenCalledWith('/home');
  });

  it('still succeeds with the login answer when the /users/me refresh fails', async () => {
    stubFetch({ 'POST /api/auth/login': reply(200, { token: 't', expiresAt: 'x', user: { ...sampleUser, avatar: '' } }), 'GET /api/users/me': reply(500, { message: 'Internal server error', code: 'INTERNAL' }) });
    await expect(login(credentials)).resolves.toBe(true);
    expect(loggedIn.get()).toBe(true);
    expect(currentUser.get()?.avatar).toBe(DEFAULT_AVATAR);
    expect(navigate).toHaveBeenCalledWith('/home');
  });

  it('failure: loggedIn false, the server message as an error toast, no navigation', async () => {
    loggedIn.set(true);
    stubFetch({ 'POST /api/auth/login': reply(429, { message: 'Too many login attempts, please try again later', code: 'RATE_LIMITED' }) });
    await expect(login(credentials)).resolves.toBe(false);
    expect(loggedIn.get()).toBe(false);
    expect(loginStatus.get()).toBe('error');
    expect(loginError.get()).toBe('Too many login attempts, please try again later');
    expect(toastTexts()).toEqual([['error', 'Too many login attempts, please try again later']]);
    expect(navigate).not.toHaveBeenCalled();
  });

  it("failure without a server message toasts 'Incorrect credentials!'", async () => {
    stubFetch({ 'POST /api/auth/login': reply(400) });
    await login(credentials);
    expect(toastTexts()).toEqual([['error', 'Incorrect credentials!']]);
    expect(loggedIn.get()).toBe(false);
  });

  it("wrong credentials show the server's 'Incorrect credentials!'", async () => {
    stubFetch({ 'POST /api/auth/login': reply(400, { message: 'Incorrect credentials!', code: 'INVALID_CREDENTIALS' }) });
    await login(credentials);
    expect(toastTexts()).toEqual([['error', 'Incorrect credentials!']]);
  });
});

describe('auth.logout', () => {
  it("POSTs /auth/logout, resets auth and user state, toasts 'Log out!' and goes to /auth/login", async () => {
    loggedIn.set(true);
    loginStatus.set('success');
    setCurrentUser({ _id: 'u1', name: 'Ada', username: 'ada', role: 'user', avatar: null });
    const { calls } = stubFetch({ 'POST /api/auth/logout': reply(204) });
    await logout();
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /api/auth/logout']);
    expect(loggedIn.get()).toBe(false);
    expect(loginStatus.get()).toBe('idle');
    expect(currentUser.get()).toBeNull();
    // The message is for the login page the browser goes to, not for this page.
    expect(toastTexts()).toEqual([]);
    expect(navigate).toHaveBeenCalledWith('/auth/login');
  });

  it('clears the local state even when the call fails', async () => {
    loggedIn.set(true);
    stubFetch({ 'POST /api/auth/logout': reply(403, { message: 'Cross-site request refused', code: 'CSRF_REJECTED' }) });
    await logout();
    expect(loggedIn.get()).toBe(false);
    expect(navigate).toHaveBeenCalledWith('/auth/login');
  });

  it('hands the toast to the next page through sessionStorage', async () => {
    stubFetch({ 'POST /api/auth/logout': reply(204) });
    await logout();
    const stored = JSON.parse(sessionStorage.getItem(TOAST_STORAGE_KEY) ?? '[]') as Array<{ message: string }>;
    expect(stored.map((t) => t.message)).toEqual(['Log out!']);
  });
});

describe('toasts belong to their page', () => {
  /** The store as the next page loads it: a fresh module evaluation over the same sessionStorage. */
  async function nextPage() {
    vi.resetModules();
    return import('../../src/lib/stores/toast.js');
  }

  it("a page's own toasts are never stored: the next page starts empty", async () => {
    toast.success('Your profile has been updated.');
    toast.error('Could not save');
    expect(toastTexts()).toHaveLength(2);
    expect(sessionStorage.length).toBe(0);
    expect((await nextPage()).toasts.get()).toEqual([]);
  });

  it('a handed-over toast shows on the next page once, not again after a reload', async () => {
    toastOnNextPage('success', 'Log out!');
    expect(toastTexts()).toEqual([]);
    const next = await nextPage();
    expect(next.toasts.get().map((t) => [t.type, t.message])).toEqual([['success', 'Log out!']]);
    expect(sessionStorage.getItem(TOAST_STORAGE_KEY)).toBeNull();
    expect((await nextPage()).toasts.get()).toEqual([]);
  });

  it('a handed-over toast the browser never navigated for goes stale', async () => {
    sessionStorage.setItem(TOAST_STORAGE_KEY, JSON.stringify([{ id: 'old', type: 'info', message: 'Long ago', createdAt: Date.now() - 60_000 }]));
    expect((await nextPage()).toasts.get()).toEqual([]);
  });
});

describe('auth.forgotPassword', () => {
  it('tracks forgotStatus and returns the message', async () => {
    stubFetch({ 'POST /api/auth/users/forgot': reply(200, { message: 'If this email belongs to an account…' }) });
    await expect(forgotPassword('a@b.co')).resolves.toBe('If this email belongs to an account…');
    expect(forgotStatus.get()).toBe('success');
    stubFetch({ 'POST /api/auth/users/forgot': reply(429, { message: 'Too many requests', code: 'RATE_LIMITED' }) });
    await expect(forgotPassword('a@b.co')).rejects.toMatchObject({ status: 429 });
    expect(forgotStatus.get()).toBe('error');
  });
});

describe('user store', () => {
  it('falls back to the default avatar', () => {
    setCurrentUser({ _id: 'u1', name: 'Ada', username: 'ada', role: 'user' });
    expect(currentUser.get()?.avatar).toBe(DEFAULT_AVATAR);
    setCurrentUser({ _id: 'u1', name: 'Ada', username: 'ada', role: 'user', avatar: '/a.webp' });
    expect(currentUser.get()?.avatar).toBe('/a.webp');
  });

  it('updateProfile raises updating during the call and lowers it on success', async () => {
    let during: boolean | undefined;
    stubFetch({
      'PUT /api/users': (call) => {
        during = updating.get();
        return reply(200, { ...sampleUser, ...(call.body as object), avatar: '' });
      },
    });
    const user = await updateProfile({ name: 'Ada Lovelace' });
    expect(during).toBe(true);
    expect(updating.get()).toBe(false);
    expect(user.name).toBe('Ada Lovelace');
    expect(currentUser.get()).toMatchObject({ name: 'Ada Lovelace', avatar: DEFAULT_AVATAR });
    expect(toastTexts()).toEqual([['success', 'Your profile has been updated.']]);
  });

  it('updateProfile lowers updating on error and rethrows the ApiError', async () => {
    stubFetch({ 'PUT /api/users': reply(409, { message: 'This username is already taken.', code: 'CONFLICT', details: { field: 'username' } }) });
    await expect(updateProfile({ username: 'taken' })).rejects.toMatchObject({ status: 409 });
    expect(updating.get()).toBe(false);
    expect(toastTexts()).toEqual([['error', 'This username is already taken.']]);
  });

  it('updatePassword sends password, currentPassword and source, and lowers updating on success and on error', async () => {
    const { calls } = stubFetch({ 'PUT /api/auth/users/me/password': reply(200, { message: 'Your password has been changed.' }) });
    await expect(updatePassword({ password: 'newpass123', currentPassword: 'old', source: 'user' })).resolves.toBe('Your password has been changed.');
    expect(calls[0]!.body).toEqual({ password: 'newpass123', currentPassword: 'old', source: 'user' });
    expect(updating.get()).toBe(false);

    stubFetch({ 'PUT /api/auth/users/me/password': reply(400, { message: 'Your current password is incorrect.', code: 'BAD_REQUEST' }) });
    await expect(updatePassword({ password: 'newpass123', currentPassword: 'wrong', source: 'user' })).rejects.toThrow('Your current password is incorrect.');
    expect(updating.get()).toBe(false);
  });

  it('a network failure also lowers updating', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('offline'))));
    await expect(updateProfile({ bio: 'x' })).rejects.toMatchObject({ status: 0 });
    expect(updating.get()).toBe(false);
  });

  it('uploadUserImage tracks which image is uploading and stores the answer', async () => {
    stubFetch({ 'POST /api/users/avatar/upload': () => { expect(uploading.get()).toBe('avatar'); return reply(200, { ...sampleUser, avatar: '/media/public/new.webp' }); } });
    await uploadUserImage('avatar', new Blob(['x'], { type: 'image/png' }));
    expect(uploading.get()).toBeNull();
    expect(currentUser.get()?.avatar).toBe('/media/public/new.webp');
    stubFetch({ 'POST /api/users/cover/upload': reply(413, { message: 'The image is too large', code: 'PAYLOAD_TOO_LARGE' }) });
    await expect(uploadUserImage('cover', new Blob(['x']))).rejects.toMatchObject({ status: 413 });
    expect(uploading.get()).toBeNull();
  });
});

describe('toast store', () => {
  it('queues success, error and info toasts', () => {
    toast.success('a');
    toast.error('b');
    toast.info('c');
    expect(toastTexts()).toEqual([
      ['success', 'a'],
      ['error', 'b'],
      ['info', 'c'],
    ]);
    expect(new Set(toasts.get().map((t) => t.id)).size).toBe(3);
  });

  it('a fresh page picks up only the toasts raised just before the navigation', async () => {
    const now = Date.now();
    sessionStorage.setItem(
      TOAST_STORAGE_KEY,
      JSON.stringify([
        { id: 'old', type: 'info', message: 'seen long ago', createdAt: now - 60_000 },
        { id: 'new', type: 'success', message: 'Log out!', createdAt: now - 200 },
      ]),
    );
    vi.resetModules();
    const fresh = await import('../../src/lib/stores/toast.js');
    expect(fresh.toasts.get().map((t) => t.message)).toEqual(['Log out!']);
  });
});

describe('error-page redirect', () => {
  it('stores the error and navigates to the url; the next page takes it once', () => {
    redirectToError({ message: 'Video not found', status: 404, code: 'NOT_FOUND' }, '/404');
    expect(navigate).toHaveBeenCalledWith('/404');
    expect(pageError.get()).toEqual({ message: 'Video not found', status: 404, code: 'NOT_FOUND' });
    expect(JSON.parse(sessionStorage.getItem(PAGE_ERROR_STORAGE_KEY)!)).toEqual({ message: 'Video not found', status: 404, code: 'NOT_FOUND' });
    pageError.set(null); // as on a freshly loaded page
    expect(takePageError()).toEqual({ message: 'Video not found', status: 404, code: 'NOT_FOUND' });
    expect(takePageError()).toBeNull();
  });
});

describe('ui settings', () => {
  it('has the documented defaults', () => {
    expect(ui.get()).toEqual({ ...DEFAULT_UI });
    expect(ui.get()).toMatchObject({ theme: 'light', currencySymbol: '$', currency: 'USD' });
  });

  it('persists each field to localStorage under the ui: prefix', () => {
    setTheme('dark');
    expect(UI_STORAGE_PREFIX).toBe('ui:');
    expect(localStorage.getItem('ui:theme')).toBe('"dark"');
    expect(document.documentElement.dataset.theme).toBe('dark');
  });

  it('hydrates from #public-settings (logoUrl becomes logo) and keeps the stored theme', () => {
    setTheme('dark');
    const menus = [{ title: 'Contact', path: '/contact', section: 'footer' }];
    setPageJson('public-settings', { siteName: 'Fanstage', logoUrl: '/logo.svg', favicon: '/favicon.svg', loginPlaceholderImage: '/login.svg', menus, footerContent: '<p>hi</p>', currency: 'EUR', currencySymbol: '€', maintenanceMode: false, captchaEnabled: false, captchaSiteKey: '' });
    hydrateUi();
    expect(ui.get()).toEqual({ theme: 'dark', siteName: 'Fanstage', logo: '/logo.svg', menus, favicon: '/favicon.svg', loginPlaceholderImage: '/login.svg', footerContent: '<p>hi</p>', currency: 'EUR', currencySymbol: '€' });
    expect(JSON.parse(localStorage.getItem('ui:menus')!)).toEqual(menus);
    expect(localStorage.getItem('ui:currency')).toBe('"EUR"');
  });

  it('is reloaded from localStorage by a fresh page', async () => {
    localStorage.setItem('ui:theme', '"dark"');
    localStorage.setItem('ui:siteName', '"Stored name"');
    vi.resetModules();
    const fresh = await import('../../src/lib/stores/ui.js');
    expect(fresh.ui.get()).toMatchObject({ theme: 'dark', siteName: 'Stored name', currency: 'USD' });
  });
});

describe('resetAll', () => {
  it('puts every store back to its initial state', () => {
    loggedIn.set(true);
    loginStatus.set('error');
    forgotStatus.set('success');
    loginError.set('x');
    setCurrentUser({ _id: 'u1', name: 'Ada', username: 'ada', role: 'user' });
    updating.set(true);
    uploading.set('cover');
    toast.error('boom');
    pageError.set({ message: 'x' });
    setTheme('dark');
    ui.setKey('siteName', 'Changed');

    resetAll();

    expect(loggedIn.get()).toBe(false);
    expect(loginStatus.get()).toBe('idle');
    expect(forgotStatus.get()).toBe('idle');
    expect(loginError.get()).toBeNull();
    expect(currentUser.get()).toBeNull();
    expect(updating.get()).toBe(false);
    expect(uploading.get()).toBeNull();
    expect(toasts.get()).toEqual([]);
    expect(pageError.get()).toBeNull();
    expect(ui.get()).toEqual({ ...DEFAULT_UI });
    expect(sessionStorage.getItem(TOAST_STORAGE_KEY)).toBeNull();
  });
});

describe('the header badges after a thread was read before they hydrated', () => {
  it('a read thread\'s answer sets both counts, and the badges\' later start at the page\'s older figures keeps them', async () => {
    const { createInbox, seedUnread, unreadMessages } = await import('../../src/lib/stores/messages.js');
    const { followBellCount, unreadCount } = await import('../../src/lib/stores/notifications.js');
    // Earlier cases load modules afresh: the reset these stores registered with is the one loaded beside them.
    const { resetAll: resetStores } = await import('../../src/lib/stores/reset.js');
    const conversation = { _id: 'c1' } as never;
    stubFetch({ 'POST /api/messages/conversations/c1/read': reply(200, { conversationId: 'c1', readAt: '2026-11-27T10:00:00.000Z', count: 0, notifications: 2 }) });
    const inbox = createInbox('me', { conversations: { items: [], total: 0 }, active: conversation, messages: { items: [], total: 0 } });
    await inbox.markRead();
    // The page said 1 unread message and 3 unread notifications when it was rendered.
    seedUnread(1);
    followBellCount(3);
    expect(unreadMessages.get()).toBe(0);
    expect(unreadCount.get()).toBe(2);
    // A new page starts again from what it was rendered with.
    resetStores();
    followBellCount(5);
    expect(unreadCount.get()).toBe(5);
  });
});
