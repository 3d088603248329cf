// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { created, lastSocket } from './fake-socket.js';
import { setPageJson } from './client-helpers.js';
import {
  connectRealtime,
  disconnectRealtime,
  getRealtimeSocket,
  notificationCount,
  onRealtime,
  realtimeStatus,
  realtimeUserId,
  syncRealtime,
  watchObject,
} from '../../src/lib/stores/realtime.js';
import { RECONNECTION_DELAY_MAX_MS, RECONNECTION_DELAY_MS } from '../../src/lib/socket.js';
import { loggedIn } from '../../src/lib/stores/auth.js';
import { resetAll } from '../../src/lib/stores/reset.js';
import RealtimeStatus from '../../src/islands/RealtimeStatus.js';
import NotificationBell from '../../src/islands/NotificationBell.js';
import type { RealtimeStatus as Status } from '../../common/realtime.js';

vi.mock('socket.io-client', async () => (await import('./fake-socket.js')).socketIoMock);

const runtime = (env: 'production' | 'development' | 'test' = 'test', socketUrl = '') =>
  setPageJson('runtime-config', { apiBase: '/api', socketUrl, socketPath: '/rt/socket.io', env });

beforeEach(() => {
  document.head.innerHTML = '';
  runtime();
  created.length = 0;
  resetAll();
});
afterEach(() => {
  cleanup();
  disconnectRealtime();
  vi.restoreAllMocks();
});

describe('realtime store', () => {
  it('is created only when a session exists, and only once', () => {
    expect(connectRealtime({ loggedIn: false })).toBeNull();
    expect(created).toHaveLength(0);
    expect(realtimeStatus.get()).toBe('disconnected');

    const socket = connectRealtime({ loggedIn: true });
    expect(created).toHaveLength(1);
    expect(realtimeStatus.get()).toBe('initialized');
    expect(connectRealtime({ loggedIn: true })).toBe(socket);
    expect(created).toHaveLength(1);
  });

  it('connects to the page origin with the configured path, websocket then polling, unlimited 1000/10000 ms reconnection', () => {
    connectRealtime({ loggedIn: true });
    const s = lastSocket();
    expect(s.url).toBe(window.location.origin);
    expect(s.options).toMatchObject({
      path: '/rt/socket.io',
      transports: ['websocket', 'polling'],
      reconnection: true,
      reconnectionAttempts: Infinity,
      reconnectionDelay: 1000,
      reconnectionDelayMax: 10000,
      withCredentials: true,
    });
    expect(RECONNECTION_DELAY_MS).toBe(1000);
    expect(RECONNECTION_DELAY_MAX_MS).toBe(10_000);
    // The browser holds no token (httpOnly cookie): nothing in the query.
    expect(s.options.query).toBeUndefined();
  });

  it('passes a token it holds in the connection query and in auth/login; an explicit address wins', () => {
    connectRealtime({ loggedIn: true, token: 'tok-123', url: 'https://rt.example.test' });
    const s = lastSocket();
    expect(s.url).toBe('https://rt.example.test');
    expect(s.options.query).toEqual({ token: 'tok-123' });
    s.serverConnect();
    expect(s.sent('auth/login')[0]!.payload).toEqual({ token: 'tok-123' });
  });

  it('uses a configured socketUrl of another origin', () => {
    runtime('test', 'https://sockets.example.test');
    connectRealtime({ loggedIn: true });
    expect(lastSocket().url).toBe('https://sockets.example.test');
  });

  it('connect → connected and auth/login; disconnect → disconnected; reconnect attempts → reconnecting; failures → failed; reconnect → connected and auth/login again', () => {
    const seen: Status[] = [];
    const off = realtimeStatus.listen((s) => seen.push(s));
    connectRealtime({ loggedIn: true });
    const s = lastSocket();
    s.serverConnect();
    expect(realtimeStatus.get()).toBe('connected');
    const login = s.sent('auth/login');
    expect(login).toHaveLength(1);
    expect(login[0]!.payload).toEqual({});
    login[0]!.ack!({ ok: true, userId: 'u1' });
    expect(realtimeUserId.get()).toBe('u1');

    s.serverDisconnect();
    expect(realtimeStatus.get()).toBe('disconnected');
    expect(realtimeUserId.get()).toBeNull();
    s.io.fire('reconnect_attempt', 1);
    expect(realtimeStatus.get()).toBe('reconnecting');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    s.io.fire('reconnect_error', new Error('refused'));
    expect(realtimeStatus.get()).toBe('failed');
    expect(warn).toHaveBeenCalled();
    s.io.fire('reconnect_attempt', 2);
    s.serverConnect();
    s.io.fire('reconnect', 2);
    expect(realtimeStatus.get()).toBe('connected');
    expect(s.sent('auth/login')).toHaveLength(2);
    s.fire('connect_error', new Error('boom'));
    expect(realtimeStatus.get()).toBe('failed');
    s.io.fire('reconnect_failed');
    expect(realtimeStatus.get()).toBe('failed');
    off();
    expect(seen).toEqual(['initialized', 'connected', 'disconnected', 'reconnecting', 'failed', 'reconnecting', 'connected', 'failed']);
  });

  it('logs errors to the console only outside production', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    runtime('production');
    connectRealtime({ loggedIn: true });
    lastSocket().fire('connect_error', new Error('down'));
    expect(realtimeStatus.get()).toBe('failed');
    expect(warn).not.toHaveBeenCalled();
    disconnectRealtime();
    runtime('development');
    connectRealtime({ loggedIn: true });
    lastSocket().fire('connect_error', new Error('down'));
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("the bell shows a count pushed before it hydrated (the notifications list was already live), not the page's older figure", () => {
    connectRealtime({ loggedIn: true });
    lastSocket().fire('notification/count', { count: 1 });
    render(<NotificationBell initialCount={0} />);
    expect(screen.getByTestId('notification-bell').getAttribute('data-count')).toBe('1');
    expect(screen.getByTestId('notification-badge').textContent).toBe('1');
    // The server's counts stop at 100: the badge and its label say 99+ from there.
    act(() => lastSocket().fire('notification/count', { count: 99 }));
    expect(screen.getByTestId('notification-badge').textContent).toBe('99');
    act(() => lastSocket().fire('notification/count', { count: 100 }));
    expect(screen.getByTestId('notification-badge').textContent).toBe('99+');
    expect(screen.getByTestId('notification-bell').getAttribute('aria-label')).toBe('Notifications, 99+ unread');
    act(() => lastSocket().fire('notification/count', { count: 0 }));
    expect(screen.getByTestId('notification-bell').getAttribute('data-count')).toBe('0');
  });

  it('routes server events to subscribers, on this socket and the next one', () => {
    const got: number[] = [];
    const off = onRealtime('notification/count', ({ count }) => got.push(count));
    connectRealtime({ loggedIn: true });
    lastSocket().fire('notification/count', { count: 3 });
    expect(got).toEqual([3]);
    expect(notificationCount.get()).toBe(3);
    disconnectRealtime();
    connectRealtime({ loggedIn: true });
    lastSocket().fire('notification/count', { count: 4 });
    expect(got).toEqual([3, 4]);
    off();
    lastSocket().fire('notification/count', { count: 5 });
    expect(got).toEqual([3, 4]);
  });

  it('watches objects: joins on connect and on every reconnect, counts subscribers, leaves at the last', () => {
    const unwatchA = watchObject('video', 'v1');
    connectRealtime({ loggedIn: true });
    const s = lastSocket();
    s.serverConnect();
    expect(s.sent('object/watch').map((e) => e.payload)).toEqual([{ objectType: 'video', objectId: 'v1' }]);
    const unwatchB = watchObject('video', 'v1');
    const unwatchC = watchObject('gallery', 'g1');
    expect(s.sent('object/watch')).toHaveLength(2);
    s.serverDisconnect();
    s.serverConnect();
    expect(s.sent('object/watch').slice(2).map((e) => e.payload)).toEqual([
      { objectType: 'video', objectId: 'v1' },
      { objectType: 'gallery', objectId: 'g1' },
    ]);
    unwatchA();
    unwatchA();
    expect(s.sent('object/unwatch')).toHaveLength(0);
    unwatchB();
    expect(s.sent('object/unwatch').map((e) => e.payload)).toEqual([{ objectType: 'video', objectId: 'v1' }]);
    unwatchC();
  });

  it('syncRealtime: re-attempted when loggedIn changes, closed when it turns false', () => {
    syncRealtime({ loggedIn: false });
    expect(created).toHaveLength(0);
    syncRealtime({ loggedIn: true });
    const s = lastSocket();
    s.serverConnect();
    syncRealtime({ loggedIn: true });
    expect(s.sent('auth/login')).toHaveLength(2);
    syncRealtime({ loggedIn: false });
    expect(s.closed).toBe(true);
    expect(getRealtimeSocket()).toBeNull();
    expect(realtimeStatus.get()).toBe('disconnected');
    syncRealtime({ loggedIn: true });
    expect(created).toHaveLength(2);
  });
});

describe('RealtimeStatus island (the wrapper owns the connection)', () => {
  it('connects for a signed-in page, shows the status, follows loggedIn, closes on unmount', () => {
    const view = render(<RealtimeStatus loggedIn />);
    expect(created).toHaveLength(1);
    const indicator = screen.getByTestId('realtime-status');
    expect(indicator.dataset.status).toBe('initialized');
    act(() => lastSocket().serverConnect());
    expect(screen.getByTestId('realtime-status').dataset.status).toBe('connected');
    expect(screen.getByTestId('realtime-status').textContent).toContain('Live');
    act(() => lastSocket().io.fire('reconnect_attempt', 1));
    expect(screen.getByTestId('realtime-status').dataset.status).toBe('reconnecting');

    // The auth store's flag changes: logged out closes, logged in opens a new connection.
    act(() => loggedIn.set(true));
    act(() => loggedIn.set(false));
    expect(created[0]!.closed).toBe(true);
    act(() => loggedIn.set(true));
    expect(created).toHaveLength(2);

    view.unmount();
    expect(created[1]!.closed).toBe(true);
    expect(realtimeStatus.get()).toBe('disconnected');
  });

  it('opens nothing for a guest and shows nothing', () => {
    render(<RealtimeStatus loggedIn={false} />);
    expect(created).toHaveLength(0);
    expect(screen.queryByTestId('realtime-status')).toBeNull();
  });
});
