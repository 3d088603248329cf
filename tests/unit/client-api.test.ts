// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { auth } from '../../src/lib/api/auth.js';
import { ApiError, errorMessage, NETWORK_ERROR_MESSAGE, UNAUTHORIZED_MESSAGE } from '../../src/lib/api/error.js';
import { apiFetch, apiUrl, isAbsoluteUrl } from '../../src/lib/api/transport.js';
import { setNavigator } from '../../src/lib/navigation.js';
import { reply, setPageJson, stubFetch } from './client-helpers.js';

const navigate = vi.fn();

beforeEach(() => {
  navigate.mockReset();
  setNavigator(navigate);
  document.head.innerHTML = '';
  window.history.replaceState(null, '', '/');
});
afterEach(() => {
  vi.unstubAllGlobals();
  setNavigator();
});

describe('isAbsoluteUrl', () => {
  it.each(['http://example.com', 'https://example.com/api/x?y=1', 'HTTPS://Example.com:8443/a', 'http://127.0.0.1:4321/api'])('%s is absolute', (u) => {
    expect(isAbsoluteUrl(u)).toBe(true);
  });
  it.each(['/api/users', 'users/me', '//evil.example/x', 'ftp://example.com/file', 'javascript:alert(1)', 'https://', 'http:/x', '', 'mailto:a@b.c'])(
    '%s is not',
    (u) => {
      expect(isAbsoluteUrl(u)).toBe(false);
    },
  );
});

describe('apiUrl', () => {
  it('prefixes the base from the runtime config, /api when there is none', () => {
    expect(apiUrl('/users/me')).toBe('/api/users/me');
    setPageJson('runtime-config', { apiBase: 'https://api.example.test/v1/', socketUrl: '', socketPath: '/socket.io', env: 'test' });
    expect(apiUrl('/users/me')).toBe('https://api.example.test/v1/users/me');
    expect(apiUrl('users/me')).toBe('https://api.example.test/v1/users/me');
  });
  it('leaves absolute URLs alone', () => {
    setPageJson('runtime-config', { apiBase: '/api' });
    expect(apiUrl('https://cdn.example.test/file.json')).toBe('https://cdn.example.test/file.json');
  });
});

describe('apiFetch', () => {
  it('sends JSON with the cookie credentials and no Authorization header, and returns the parsed body', async () => {
    const { calls } = stubFetch({ 'PUT /api/users': reply(200, { _id: 'u1', name: 'New' }) });
    const res = await apiFetch<{ name: string }>('/users', { method: 'PUT', body: { name: 'New' } });
    expect(res).toEqual({ _id: 'u1', name: 'New' });
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.url).toBe('/api/users');
    expect(call!.method).toBe('PUT');
    expect(call!.headers.get('content-type')).toBe('application/json');
    expect(call!.headers.get('accept')).toBe('application/json');
    expect(call!.headers.has('authorization')).toBe(false);
    expect(call!.init.credentials).toBe('same-origin');
    expect(call!.body).toEqual({ name: 'New' });
  });

  it('adds the query string, without undefined values', async () => {
    const { calls } = stubFetch({ 'GET /api/performers/search': reply(200, { items: [], total: 0 }) });
    await apiFetch('/performers/search', { query: { q: 'ada', limit: 12, sort: undefined } });
    expect(calls[0]!.url).toBe('/api/performers/search?q=ada&limit=12');
  });

  it('uses the configured base', async () => {
    setPageJson('runtime-config', { apiBase: '/custom-api', socketUrl: '', socketPath: '/socket.io', env: 'test' });
    const { calls } = stubFetch({ 'GET /custom-api/users/me': reply(200, { _id: 'u1' }) });
    await auth.me();
    expect(calls[0]!.url).toBe('/custom-api/users/me');
  });

  it('a 401 sends the user to /login (saying why, and where to come back to) and throws "Forbidden in the action!"', async () => {
    window.history.replaceState(null, '', '/videos/v1?x=1');
    stubFetch({ 'GET /api/users/me': reply(401, { message: 'Please log in to continue', code: 'UNAUTHORIZED' }) });
    const err = await auth.me().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe(UNAUTHORIZED_MESSAGE);
    expect((err as ApiError).status).toBe(401);
    expect((err as ApiError).body.code).toBe('UNAUTHORIZED');
    expect(navigate).toHaveBeenCalledTimes(1);
    expect(navigate).toHaveBeenCalledWith(`/login?reason=session&next=${encodeURIComponent('/videos/v1?x=1')}`);
  });

  it('a 401 while already on /login does not reload the page', async () => {
    window.history.replaceState(null, '', '/login');
    stubFetch({ 'GET /api/users/me': reply(401, { message: 'x', code: 'UNAUTHORIZED' }) });
    await expect(auth.me()).rejects.toThrow(UNAUTHORIZED_MESSAGE);
    expect(navigate).not.toHaveBeenCalled();
  });

  it('other non-2xx replies reject with the server JSON body and status', async () => {
    const body = {
      message: 'Invalid body.email: A valid email address is required',
      code: 'VALIDATION_FAILED',
      details: [
        { path: 'body.email', message: 'A valid email address is required' },
        { path: 'body.password', message: 'Password is required' },
        { path: 'body.email', message: 'second message for email is ignored' },
      ],
    };
    stubFetch({ 'POST /api/auth/users/register': reply(400, body) });
    const err = (await auth.register({ name: 'A', username: 'abc', email: 'nope', password: '', role: 'user', confirmAdult: true, acceptTerms: true }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(400);
    expect(err.body).toEqual(body);
    expect(err.message).toBe(body.message);
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.fieldErrors()).toEqual({ email: 'A valid email address is required', password: 'Password is required' });
    expect(navigate).not.toHaveBeenCalled();
  });

  it('a 409 with a { field } detail maps to that field', async () => {
    stubFetch({ 'PUT /api/users': reply(409, { message: 'This username is already taken.', code: 'CONFLICT', details: { field: 'username' } }) });
    const err = (await auth.updateProfile({ username: 'taken' }).catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(409);
    expect(err.fieldErrors()).toEqual({ username: 'This username is already taken.' });
  });

  it.each([429, 403, 404, 500])('a %i rejects with its body', async (status) => {
    const body = { message: `failure ${status}`, code: 'X' };
    stubFetch({ 'POST /api/auth/login': reply(status, body) });
    await expect(auth.login({ email: 'a', password: 'b', remember: true })).rejects.toMatchObject({ status, body });
  });

  it('a reply without a JSON message gets a made-up body, and errorMessage then prefers the fallback', async () => {
    stubFetch({ 'GET /api/users/me': reply(502, '<html>Bad gateway</html>') });
    const err = (await auth.me().catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(502);
    expect(err.body).toEqual({ message: 'Request failed with status 502', code: 'HTTP_502' });
    expect(err.fromServer).toBe(false);
    expect(errorMessage(err, 'fallback')).toBe('fallback');
    expect(errorMessage(new ApiError(400, { message: 'server says', code: 'X' }), 'fallback')).toBe('server says');
    expect(errorMessage(new Error('boom'), 'fallback')).toBe('fallback');
  });

  it.each([204, 205])('a %i resolves to undefined', async (status) => {
    stubFetch({ 'POST /api/auth/logout': reply(status) });
    await expect(auth.logout()).resolves.toBeUndefined();
  });

  it('a network failure rejects with status 0 and a readable message', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    const err = (await auth.me().catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(0);
    expect(err.message).toBe(NETWORK_ERROR_MESSAGE);
    expect(navigate).not.toHaveBeenCalled();
  });

  it('uploads send multipart FormData with the file field and no JSON content type', async () => {
    const { calls } = stubFetch({ 'POST /api/users/avatar/upload': reply(200, { _id: 'u1', avatar: '/media/public/a.webp' }) });
    const file = new File([new Uint8Array([1, 2, 3])], 'me.png', { type: 'image/png' });
    await auth.uploadAvatar(file);
    const body = calls[0]!.init.body;
    expect(body).toBeInstanceOf(FormData);
    expect((body as FormData).get('file')).toBeInstanceOf(File);
    expect(calls[0]!.headers.has('content-type')).toBe(false);
  });

  it('calls the documented endpoints with the documented bodies', async () => {
    const ok = reply(200, { message: 'ok' });
    const { calls } = stubFetch({
      'POST /api/auth/email-verification': ok,
      'POST /api/auth/email-verification/resend': ok,
      'POST /api/auth/users/forgot': ok,
      'POST /api/auth/users/reset-password': ok,
      'PUT /api/auth/users/me/password': ok,
      'POST /api/contact': ok,
      'POST /api/users/cover/upload': reply(200, { _id: 'u1' }),
    });
    await auth.verifyEmail('tok');
    await auth.resendVerification('a@b.co');
    await auth.forgotPassword('a@b.co');
    await auth.resetPassword('tok', 'secret123');
    await auth.changePassword({ password: 'new12345', currentPassword: 'old', source: 'performer' });
    await auth.contact({ name: 'A', email: 'a@b.co', message: 'Hello there, long enough' });
    await auth.uploadCover(new Blob(['x'], { type: 'image/png' }));
    expect(calls.map((c) => [c.method, c.url, c.body instanceof FormData ? 'FormData' : c.body])).toEqual([
      ['POST', '/api/auth/email-verification', { token: 'tok' }],
      ['POST', '/api/auth/email-verification/resend', { email: 'a@b.co' }],
      ['POST', '/api/auth/users/forgot', { email: 'a@b.co' }],
      ['POST', '/api/auth/users/reset-password', { token: 'tok', password: 'secret123' }],
      ['PUT', '/api/auth/users/me/password', { password: 'new12345', currentPassword: 'old', source: 'performer' }],
      ['POST', '/api/contact', { name: 'A', email: 'a@b.co', message: 'Hello there, long enough' }],
      ['POST', '/api/users/cover/upload', 'FormData'],
    ]);
  });
});
