import type { Server as HttpServer, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Server, type Socket } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { engagementObjectTypeSchema, type EngagementObjectType } from '../../common/enums.js';
import type { ClientToServerEvents, RealtimeAck, ServerToClientEvents } from '../../common/realtime.js';
import { SESSION_COOKIE } from '../http/auth.js';
import { siteGate } from '../http/site-gates.js';
import { objectRoom, sessionRoom, userRoom, type RealtimeServer, type SocketData } from './hub.js';
import { unreadNotificationCount } from '../notifications/notifications.service.js';
import { openDiscussion } from '../comments/discussion.js';

export interface Realtime {
  io: RealtimeServer;
  close(): Promise<void>;
}

type AppSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
type ObjectRef = { objectType: EngagementObjectType; objectId: string };

/** Rooms one socket may watch at a time (a page watches one or two objects). */
export const MAX_WATCHED_OBJECTS = 50;
/** `auth/login` events per socket per minute (each one is a database lookup). */
export const MAX_AUTH_PER_MINUTE = 20;

const objectRef = z.object({
  objectType: engagementObjectTypeSchema,
  objectId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
});
const loginPayload = z.object({ token: z.string().max(512).optional() }).optional().nullable();

/**
 * socket.io on the same HTTP server as the pages and the API. With REDIS_URL the redis adapter
 * carries room broadcasts between instances. See server/realtime/README.md for rooms and events.
 *
 * Authentication, at connect: the `token` of the handshake's auth payload or query (other clients, docs/product.md),
 * else the `token` session cookie the browser sends with the handshake (accepted only when the handshake's
 * Origin, if any, is this site: a page of another site must not ride on the visitor's cookie). A socket
 * without a valid session is a guest: it may watch objects but joins no user room.
 *
 * The site gates apply to the handshake as to every other way in (server/http/site-gates.ts): a visitor from a
 * blocked country, or anyone but an admin in maintenance mode, gets a connect_error whose message says why and
 * whose `data` is `{ code, status }` (COUNTRY_BLOCKED 451, MAINTENANCE 503). `clientIp` gives the visitor's
 * address as Fastify's request.ip does (the same proxy trust).
 */
export async function attachRealtime(
  server: HttpServer,
  ctx: AppContext,
  opts: { clientIp: (raw: IncomingMessage) => string | undefined },
): Promise<Realtime> {
  const io: RealtimeServer = new Server(server, {
    path: ctx.config.socketPath,
    transports: ['websocket', 'polling'],
    serveClient: false,
    cors: { origin: false },
    // Clients only send small control events.
    maxHttpBufferSize: 16 * 1024,
  });
  let pub: import('ioredis').Redis | undefined;
  let sub: import('ioredis').Redis | undefined;
  if (ctx.redis) {
    pub = ctx.redis.duplicate();
    sub = ctx.redis.duplicate();
    pub.on('error', () => {});
    sub.on('error', () => {});
    io.adapter(createAdapter(pub, sub, { key: `${ctx.config.redisKeyPrefix}socket.io` }));
  }
  const log = ctx.logger.child({ module: 'realtime' });

  io.use((socket, next) => {
    const token = handshakeToken(socket, ctx.config.publicUrl);
    socket.data.token = token;
    socket.data.user = null;
    const authenticated = token
      ? ctx.auth.authenticate(token).catch((err) => {
          // The database is unreachable: connect as a guest rather than refuse; auth/login retries later.
          log.warn({ err: (err as Error).message }, 'socket authentication failed');
          return null;
        })
      : Promise.resolve(null);
    authenticated
      .then(async (user) => {
        socket.data.user = user;
        const country = ctx.geo.countryOf(opts.clientIp(socket.request), socket.handshake.headers);
        // Kept for the rooms' access checks: a performer's own country block hides their items' rooms too.
        socket.data.country = country;
        const refusal = await siteGate(ctx, { country, role: user?.role });
        if (!refusal) return next();
        const err = new Error(refusal.message) as Error & { data?: unknown };
        err.data = { code: refusal.code, status: refusal.status };
        next(err);
      })
      .catch((err: unknown) => {
        // The gates could not be read (database down): refuse, as the API answers 503; the client retries by itself.
        log.warn({ err: (err as Error).message }, 'socket site gate failed');
        const refused = new Error('Service temporarily unavailable, please retry') as Error & { data?: unknown };
        refused.data = { code: 'UNAVAILABLE', status: 503 };
        next(refused);
      });
  });

  io.on('connection', (socket: AppSocket) => {
    /** Rooms this socket watches (or is being checked for), each with its object. */
    const watched = new Map<string, { ref: ObjectRef }>();
    /** Bumped whenever the socket's user changes, so a check made for the previous user is not applied. */
    let generation = 0;
    let authCalls: number[] = [];
    if (socket.data.user) void joinUser(socket, socket.data.user);

    async function joinUser(s: AppSocket, user: { id: string; sessionId: string }): Promise<void> {
      const userId = user.id;
      await s.join([userRoom(userId), sessionRoom(user.sessionId)]);
      try {
        s.emit('notification/count', { count: await unreadNotificationCount(ctx.db, userId) });
      } catch {
        // the count comes with the next notification
      }
    }

    function leaveUser(s: AppSocket): void {
      if (s.data.user) {
        void s.leave(userRoom(s.data.user.id));
        void s.leave(sessionRoom(s.data.user.sessionId));
      }
      s.data.user = null;
    }

    /**
     * An object room carries the object's comments, so joining it needs what reading them needs
     * (server/comments/discussion.ts): a locked item's room is for its subscribers or buyers, its performer
     * and admins. Answers null when the socket's current user may watch, else the refusal.
     */
    async function watchRefusal(ref: ObjectRef): Promise<RealtimeAck | null> {
      const d = await openDiscussion(ctx.db, socket.data.user, socket.data.country, ref.objectType, ref.objectId);
      if (!d) return { ok: false, code: 'NOT_FOUND', message: 'Content not found' };
      if (!d.decision.open) {
        return { ok: false, code: 'LOCKED', message: d.decision.needs === 'subscription' ? 'Subscribe to read and join the conversation' : 'Buy this item to read and join the conversation' };
      }
      return null;
    }

    /**
     * The socket's user changed (another account, logout, a session that no longer authenticates) or was
     * confirmed by auth/login (a subscription may have lapsed since): every watched room is checked again
     * and the ones it may no longer read are left. When the user changed, all rooms are left at once and
     * re-joined after the check, so nothing addressed to the previous user's rooms arrives in between.
     */
    async function recheckWatched(userChanged: boolean): Promise<void> {
      if (userChanged) {
        generation += 1;
        for (const room of watched.keys()) void socket.leave(room);
      }
      const gen = generation;
      await Promise.all(
        [...watched].map(async ([room, entry]) => {
          let refusal: RealtimeAck | null;
          try {
            refusal = await watchRefusal(entry.ref);
          } catch (err) {
            // Unknown: do not keep a room the socket may have lost; the client watches again after a reconnect.
            log.warn({ err: (err as Error).message }, 'object room re-check failed');
            refusal = { ok: false };
          }
          if (gen !== generation || watched.get(room) !== entry) return;
          if (refusal) {
            watched.delete(room);
            await socket.leave(room);
          } else if (userChanged) {
            await socket.join(room);
          }
        }),
      );
    }

    socket.on('auth/login', (payload, ack) => {
      const reply = (res: RealtimeAck) => typeof ack === 'function' && ack(res);
      const now = Date.now();
      authCalls = authCalls.filter((t) => now - t < 60_000);
      if (authCalls.length >= MAX_AUTH_PER_MINUTE) return reply({ ok: false, userId: socket.data.user?.id ?? null, message: 'Too many attempts' });
      authCalls.push(now);
      const parsed = loginPayload.safeParse(payload);
      if (!parsed.success) return reply({ ok: false, userId: socket.data.user?.id ?? null, message: 'Invalid payload' });
      // An explicit token wins; otherwise the handshake's (cookie or query) is checked again: it may have been revoked.
      const token = parsed.data?.token || socket.data.token;
      const before = socket.data.user?.id ?? null;
      if (!token) {
        leaveUser(socket);
        // Acknowledged once the watched rooms match the socket's new rights.
        return void recheckWatched(before !== null).then(() => reply({ ok: false, userId: null, message: 'No session' }));
      }
      ctx.auth.authenticate(token).then(
        async (user) => {
          if (!user) {
            leaveUser(socket);
            await recheckWatched(before !== null);
            return reply({ ok: false, userId: null, message: 'Invalid session' });
          }
          if (socket.data.user && (socket.data.user.id !== user.id || socket.data.user.sessionId !== user.sessionId)) leaveUser(socket);
          socket.data.user = user;
          socket.data.token = token;
          await recheckWatched(before !== user.id);
          await joinUser(socket, user);
          reply({ ok: true, userId: user.id });
        },
        (err) => {
          log.warn({ err: (err as Error).message }, 'auth/login failed');
          reply({ ok: false, userId: socket.data.user?.id ?? null, message: 'Try again later' });
        },
      );
    });

    socket.on('auth/logout', (_payload, ack) => {
      const before = socket.data.user;
      leaveUser(socket);
      void recheckWatched(before !== null).then(() => typeof ack === 'function' && ack({ ok: true, userId: null }));
    });

    socket.on('object/watch', (payload, ack) => {
      const reply = (res: RealtimeAck) => typeof ack === 'function' && ack(res);
      const parsed = objectRef.safeParse(payload);
      if (!parsed.success) return reply({ ok: false, message: 'Invalid object' });
      const ref: ObjectRef = parsed.data;
      const room = objectRoom(ref.objectType, ref.objectId);
      if (!watched.has(room) && watched.size >= MAX_WATCHED_OBJECTS) return reply({ ok: false, message: 'Too many watched objects' });
      // Checked on every watch, even of a room already joined: a subscription that lapsed closes it here.
      const entry = { ref };
      watched.set(room, entry);
      const check = (): void => {
        const gen = generation;
        watchRefusal(ref).then(
          async (refusal) => {
            // The user changed during the check: decide again for the new one.
            if (gen !== generation) return check();
            // A later watch or an unwatch of the same room took over: it decides the room.
            if (watched.get(room) !== entry) return reply(refusal ?? { ok: true });
            if (refusal) {
              watched.delete(room);
              await socket.leave(room);
              return reply(refusal);
            }
            await socket.join(room);
            reply({ ok: true });
          },
          (err) => {
            log.warn({ err: (err as Error).message }, 'object/watch check failed');
            if (watched.get(room) === entry) {
              watched.delete(room);
              void socket.leave(room);
            }
            reply({ ok: false, message: 'Try again later' });
          },
        );
      };
      check();
    });

    socket.on('object/unwatch', (payload, ack) => {
      const parsed = objectRef.safeParse(payload);
      if (parsed.success) {
        const room = objectRoom(parsed.data.objectType, parsed.data.objectId);
        watched.delete(room);
        void socket.leave(room);
      }
      if (typeof ack === 'function') ack({ ok: parsed.success });
    });
  });

  ctx.realtime.attach(io);
  return {
    io,
    async close() {
      ctx.realtime.detach();
      // Only the connections are dropped, without a socket.io "disconnect" packet: clients see a transport
      // close and reconnect by themselves (to another instance, or to this site once it is back). io.close()
      // would also close the shared HTTP server, which Fastify closes itself.
      io.engine.close();
      await Promise.all([pub?.quit().catch(() => {}), sub?.quit().catch(() => {})]);
    },
  };
}

/** The session token of a handshake: auth payload, then query (other clients), then the cookie (the site, same origin only). */
function handshakeToken(socket: AppSocket, publicUrl: string): string | null {
  const fromAuth = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
  if (typeof fromAuth === 'string' && fromAuth) return fromAuth;
  const fromQuery = socket.handshake.query?.token;
  if (typeof fromQuery === 'string' && fromQuery) return fromQuery;
  const cookie = readCookie(socket.handshake.headers.cookie, SESSION_COOKIE);
  if (cookie && originAllowed(socket.handshake.headers, publicUrl)) return cookie;
  return null;
}

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(raw) || null;
    } catch {
      return raw || null;
    }
  }
  return null;
}

/**
 * A handshake may use the cookie when it carries no Origin (non-browser clients; same-origin polling GETs)
 * or the site's own: the Host it was sent to, or PUBLIC_URL's origin. Browsers always send Origin on
 * cross-origin requests and WebSocket handshakes, so another site's page cannot use the cookie.
 */
export function originAllowed(headers: IncomingHttpHeaders, publicUrl: string): boolean {
  const origin = headers.origin;
  if (!origin) return true;
  if (origin === 'null') return false;
  try {
    const url = new URL(origin);
    if (headers.host && url.host === headers.host) return true;
    return url.origin === new URL(publicUrl).origin;
  } catch {
    return false;
  }
}
