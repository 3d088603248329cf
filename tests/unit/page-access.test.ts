import { describe, expect, it } from 'vitest';
import { accessFor, decide, needsSession, type PageAccess } from '../../src/server/page-access.js';
import { checkCanonical } from '../../server/http/canonical-path.js';

/** The page rule decisions and the canonical-path check; the whole site's route × role matrix is in tests/e2e/page-access-matrix.test.ts. */
describe('page access decisions', () => {
  const guest = null;
  const fan = { role: 'user' as const };
  const performer = { role: 'performer' as const };
  const admin = { role: 'admin' as const };

  it('looks rules up by matched route only, and knows no route it was not given', () => {
    expect(accessFor('/admin/users')).toEqual({ roles: ['admin'], maintenance: true });
    expect(accessFor('/account/orders/[id]')).toEqual({ session: true });
    expect(accessFor('//admin/users')).toBeUndefined();
    expect(accessFor('/admin/users/')).toBeUndefined();
    expect(accessFor('/_image')).toBeUndefined();
    expect(accessFor('toString')).toBeUndefined();
    expect(accessFor('__proto__')).toBeUndefined();
  });

  it.each<[string, PageAccess, Array<ReturnType<typeof decide>>]>([
    ['public', { public: true }, ['render', 'render', 'render', 'render']],
    ['session', { session: true }, ['login', 'render', 'render', 'render']],
    ['session with a guest view', { session: true, noredirect: true }, ['render', 'render', 'render', 'render']],
    ['performers', { roles: ['performer'] }, ['login', 'forbidden', 'render', 'forbidden']],
    ['admins', { roles: ['admin'] }, ['login', 'forbidden', 'forbidden', 'render']],
  ])('%s: guest, fan, performer, admin', (_name, access, expected) => {
    expect([guest, fan, performer, admin].map((u) => decide(access, u))).toEqual(expected);
  });

  it('treats every page that is not public as private', () => {
    expect(needsSession({ public: true })).toBe(false);
    expect(needsSession({ session: true, noredirect: true })).toBe(true);
    expect(needsSession({ roles: ['admin'] })).toBe(true);
  });
});

describe('canonical paths', () => {
  it.each([
    '/',
    '/admin/users',
    '/admin/users?x=1&next=%2Fa%2F%2Fb',
    '/performers/mona.money',
    '/performers/%C3%A9l%C3%A8ne',
    '/comments/video/0190abc',
    '/admin/users;x=1',
    '/a%2525b',
    '/a%3Fb',
    '/_astro/client.DNc7kU3b.js',
    "/a-z_0.9~!$&'()*+,;=:@",
  ])('%s is canonical', (url) => {
    expect(checkCanonical(url)).toEqual({ kind: 'canonical' });
  });

  it.each([
    ['//admin/users', '/admin/users'],
    ['///admin/users', '/admin/users'],
    ['/admin//users', '/admin/users'],
    ['/./admin/users', '/admin/users'],
    ['/admin/users/.', '/admin/users'],
    ['/admin/users/', '/admin/users'],
    ['/admin/users/?q=1', '/admin/users?q=1'],
    ['/admin/../admin/users', '/admin/users'],
    ['/../../admin/users', '/admin/users'],
    ['/%2e%2e/admin/users', '/admin/users'],
    ['/admin%2Fusers', '/admin/users'],
    ['/admin%2fusers?next=%2F%2Fx', '/admin/users?next=%2F%2Fx'],
    ['/%61dmin/users', '/admin/users'],
    ['/performers/%c3%a9', '/performers/%C3%A9'],
    ['/performers/é', '/performers/%C3%A9'],
    ['/admin\\users', '/admin%5Cusers'],
    ['/\\evil.example', '/%5Cevil.example'],
    ['//evil.example/x', '/evil.example/x'],
    ['/admin/users#x', '/admin/users%23x'],
    ['/a%252Fb/', '/a%252Fb'],
  ])('%s redirects to %s', (url, location) => {
    expect(checkCanonical(url)).toEqual({ kind: 'redirect', location });
    // The target is canonical: no redirect loops.
    expect(checkCanonical(location)).toEqual({ kind: 'canonical' });
  });

  it.each(['http://x/admin/users', '*', '', '/%zz', '/%FF', '/a%'])('%s is refused', (url) => {
    expect(checkCanonical(url)).toEqual({ kind: 'invalid' });
  });
});
