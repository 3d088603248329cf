import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import type { AppConfig } from './config.js';
import type { AppContext } from './context.js';
import { ping, type DatabaseHandle } from './db/database.js';
import { installErrorHandler } from './http/error-handler.js';
import { warmUp } from './http/warm-up.js';
import { installSecurityHeaders } from './http/security-headers.js';
import type { ApiApp } from './http/types.js';
import { SettingsService } from './settings/settings.service.js';
import { GeoService } from './geo/geo.service.js';
import { CaptchaService } from './captcha/captcha.service.js';
import { createStorage } from './media/storage.js';
import { useMediaTools } from './media/ffmpeg.js';
import { JobQueue } from './jobs/queue.js';
import { scheduleOrphanSweep } from './media/orphans.js';
import { registerMediaJobs } from './media/pipeline/processors.js';
import { registerWatermarkJobs, watermarkAfterProcessing } from './media/watermark/watermark.service.js';
import { registerAnnounceJob } from './follows/announce.js';
import { registerMassMessageJob } from './messages/mass.service.js';
import { messagesDeps } from './messages/messages.service.js';
import { registerNotificationMailJob } from './notifications/notification-mail.js';
import { registerVerificationJobs, scheduleVerificationRetention } from './verification/verification.service.js';
import { registerDataExportJobs } from './privacy/export.service.js';
import { publicMediaRoutes } from './media/media.routes.js';
import { protectedMediaRoutes } from './media/protected.routes.js';
import { apiRoutes, isMemberShellPath, PUBLIC_CACHE_ROUTES } from './routes.js';
import { createMicroCache } from './http/micro-cache.js';
import { checkCanonical } from './http/canonical-path.js';
import { clientIpOf, proxyTrust } from './http/client-ip.js';
import { listCounts } from './catalogue/count-cache.js';
import { attachRealtime, type Realtime } from './realtime/socket.js';
import { RealtimeHub } from './realtime/hub.js';
import { createDisplayCache } from './catalogue/display-cache.js';
import { createMailer } from './mail/mailer.js';
import { AuthService } from './auth/auth.service.js';
import { LoginFailures } from './auth/login-failures.js';
import { installAuthHook } from './http/auth.js';
import { installAccessControl, installRouteRegistry } from './http/access.js';
import { openApiOptions } from './http/openapi.js';
import { installNulGuard } from './http/nul-guard.js';
import { installSiteGates } from './http/site-gates.js';
import { ageGateRoute } from './http/age-gate.routes.js';
import { SessionCache } from './auth/session-cache.js';

export interface BuildOptions {
  config: AppConfig;
  database: DatabaseHandle;
  logger?: Logger;
  /** Serve the Astro pages and client assets (needs `astro build`); API-only tests turn it off. */
  web?: boolean;
}

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
  realtime: Realtime;
  /** Stop accepting, drain in-flight requests, close sockets, Redis and the database. */
  close(): Promise<void>;
}

export async function buildApp(opts: BuildOptions): Promise<BuiltApp> {
  const { config, database } = opts;
  const logger = opts.logger ?? pino({ level: config.logLevel });
  const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 }) : undefined;
  redis?.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));

  const settings = new SettingsService(database.db, config.settingsCacheMs);
  listCounts.ttlMs = config.listCountCacheMs;
  // Cached totals are read on the SQLite worker thread (count-cache.ts); one app per process outside the tests.
  const readOffThread = database.readOffThread?.bind(database);
  listCounts.offThread = readOffThread ? async (query) => Number(((await readOffThread(query))[0] as { n?: number } | undefined)?.n ?? 0) : undefined;
  const mailer = createMailer(config, logger);
  const failures = new LoginFailures(config.authLimits.loginFailures, redis, `${config.redisKeyPrefix}auth:`, logger);
  const captcha = new CaptchaService(settings, config.captchaVerifyUrl);
  const sessions = config.sessionCacheMs > 0 ? new SessionCache(config.sessionCacheMs) : undefined;
  const stopWatchingSessions = sessions ? database.watchSessions(sessions.watcher()) : async () => {};
  const auth = new AuthService({ db: database.db, config, settings, mailer, failures, captcha, logger, sessions });
  const storage = await createStorage(config);
  useMediaTools(config.mediaTools);
  const jobs = new JobQueue(database.db, config.pipeline.jobs, logger.child({ module: 'jobs' }));
  const watermarkDeps = {
    db: database.db, storage, logger: logger.child({ module: 'watermark' }), jobs, settings, publicUrl: config.publicUrl, video: config.pipeline.video,
    keepReplacedMs: config.mediaUrlTtlSec * 1000,
  };
  registerMediaJobs(jobs, {
    db: database.db, storage, logger: logger.child({ module: 'media' }), video: config.pipeline.video,
    afterProcessed: (objectType, objectId) => watermarkAfterProcessing(watermarkDeps, objectType, objectId),
  });
  registerWatermarkJobs(jobs, watermarkDeps);
  const ctx: AppContext = {
    config,
    db: database.db,
    engine: database.engine,
    logger,
    settings,
    geo: new GeoService(database.db, config.countryHeader, config.settingsCacheMs),
    redis,
    storage,
    captcha,
    mailer,
    auth,
    sessions,
    jobs,
    realtime: new RealtimeHub(),
    display: createDisplayCache({ ttlMs: config.pageCacheMs }),
  };
  registerAnnounceJob(jobs, { db: database.db, realtime: ctx.realtime, logger: logger.child({ module: 'feed' }) });
  registerMassMessageJob(jobs, messagesDeps(ctx), config.massMessages);
  registerNotificationMailJob(jobs, { db: database.db, config, settings, mailer, logger: logger.child({ module: 'notifications' }) });
  registerVerificationJobs(jobs, { db: database.db, storage, settings, logger: logger.child({ module: 'verification' }) });
  registerDataExportJobs(jobs, { db: database.db, storage, settings, realtime: ctx.realtime, config, logger: logger.child({ module: 'privacy' }) });

  // One trust function for Fastify's request.ip and for the micro-cache, which answers before Fastify runs.
  const trust = proxyTrust(config.trustProxy);
  const microCache = createMicroCache({
    ttlMs: config.pageCacheMs,
    countryOf: (raw) => ctx.geo.countryOf(clientIpOf(raw, trust), raw.headers),
    isPublicRoute: (url) => url.startsWith(config.apiBase) && PUBLIC_CACHE_ROUTES.has(url.slice(config.apiBase.length)),
    isMemberShellPage: isMemberShellPath,
  });
  const app = Fastify({
    loggerInstance: logger as unknown as FastifyBaseLogger,
    trustProxy: trust ?? false,
    // On close, idle keep-alive sockets are dropped at once; busy ones finish their request first.
    forceCloseConnections: 'idle',
    // Cached answers leave from the server's request listener, before Fastify builds a request.
    serverFactory: microCache.serverFactory,
  });
  app.decorate('ctx', ctx);
  // Before any plugin, so it lists every route (the access matrix test reads it).
  installRouteRegistry(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app, { jsonNotFound: opts.web === false });
  // First hook of all, so a cached answer that reaches Fastify (one waiting for a render) skips every other one.
  microCache.install(app);

  // 1. External plugins.
  await app.register(cookie);
  installSecurityHeaders(app, { hsts: config.publicUrl.startsWith('https:') });
  await app.register(rateLimit, {
    global: false,
    ...(redis ? { redis, nameSpace: `${config.redisKeyPrefix}rl:` } : {}),
    errorResponseBuilder: (_req, c) => ({
      statusCode: c.statusCode,
      message: `Too many requests, please try again in ${Math.ceil(c.ttl / 1000)} seconds`,
      code: 'RATE_LIMITED',
    }),
  });
  // The document, and what each operation says beyond its own schemas, is derived in server/http/openapi.ts.
  await app.register(swagger, openApiOptions({ apiBase: config.apiBase }));

  // 2. The JSON API under its base.
  await app.register(
    async (api) => {
      installErrorHandler(api);
      installAuthHook(api, auth, () => config.publicUrl);
      // After the auth hook: an admin's session passes the country block and maintenance mode.
      installSiteGates(api, ctx, config.apiBase);
      // Every API route declares who may call it; this refuses undeclared routes at start-up and enforces the rest.
      installAccessControl(api);
      installNulGuard(api);
      await apiRoutes(api as unknown as ApiApp);
      api.get('/docs/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: config.apiBase },
  );

  // 3. Health, media and the web front end. Health and media declare their access like the API's routes (no session
  // is read here, so only 'public' and 'signed' are accepted); static files and pages are Astro's (src/middleware.ts).
  await app.register(async (outside) => {
    installAccessControl(outside, { sessions: false });
    // Load balancers' health check: 200 when this instance can reach its database, 503 JSON when not.
    outside.get('/health', { config: { access: 'public' }, schema: { hide: true } }, async (_req, reply) => {
      try {
        await ping(database.db);
        return { ok: true, engine: database.engine };
      } catch {
        return reply.code(503).send({ message: 'Database unavailable', code: 'UNAVAILABLE' });
      }
    });
    await outside.register(publicMediaRoutes, { storage: ctx.storage });
    await outside.register(protectedMediaRoutes, { ctx });
    await outside.register(ageGateRoute);
  });
  if (opts.web !== false) await mountWeb(app, ctx);

  const realtime = await attachRealtime(app.server, ctx, { clientIp: (raw) => clientIpOf(raw, trust) });
  // The worker runs in this process (JOBS_WORKER=0 turns it off, e.g. on web-only instances).
  if (config.pipeline.jobs.worker) jobs.start();
  // ...and start the recurring deletion of identity pictures past their retention time (server/verification/); tests
  // enqueue it themselves, like the orphan sweep below they keep their job table to what they do.
  if (config.pipeline.jobs.worker && config.env !== 'test') {
    await scheduleVerificationRetention(jobs, database.db).catch((err: unknown) => logger.warn({ err }, 'could not schedule the verification retention job'));
  }
  // Instances that run the worker also remove media files a crash left without a row (server/media/orphans.ts).
  const stopOrphanSweep =
    config.pipeline.jobs.worker && config.orphanFileAgeMs > 0 && config.env !== 'test'
      ? scheduleOrphanSweep(database.db, storage, config.mediaDir, config.orphanFileAgeMs, logger)
      : () => {};

  // Before the first visitor: a cold process answered a crowd's first seconds many times slower (server/http/warm-up.ts).
  if (config.warmUpMs > 0) {
    await app.ready();
    await warmUp(app, { ms: config.warmUpMs, apiBase: config.apiBase, web: opts.web !== false, logger });
  }

  let closed = false;
  return {
    app,
    ctx,
    realtime,
    async close() {
      if (closed) return;
      closed = true;
      stopOrphanSweep();
      await realtime.close();
      // The worker stops first: running jobs finish or are handed back, and their database connections are
      // released so draining requests never wait for a pool slot a job holds. Requests may still enqueue;
      // the rows wait in the database for the next worker.
      await jobs.stop();
      // Requests in flight when close() starts finish normally; their keep-alive sockets turn idle only
      // afterwards, so keep dropping idle sockets until the server has fully closed.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
      // A request that never ends (a client stalled mid-upload) must not hold the shutdown forever.
      const deadline = setTimeout(() => {
        logger.warn({ graceMs: config.shutdownGraceMs }, 'requests still open after the grace period: closing their connections');
        app.server.closeAllConnections();
      }, config.shutdownGraceMs);
      try {
        await app.close();
      } finally {
        clearInterval(sweep);
        clearTimeout(deadline);
      }
      await mailer.close();
      await stopWatchingSessions();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      await database.close();
    },
  };
}

/** Static client assets plus the Astro SSR handler for every path the API and static files did not claim. */
async function mountWeb(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const dist = ctx.config.astroDist;
  const entry = path.join(dist, 'server', 'entry.mjs');
  if (!fs.existsSync(entry)) throw new Error(`Astro build not found at ${entry}: run "npm run build" first`);
  await app.register(fastifyStatic, {
    root: path.join(dist, 'client'),
    wildcard: false,
    setHeaders(reply, filePath) {
      // Astro's hashed bundles never change; everything else is revalidated hourly.
      reply.header('cache-control', filePath.includes(`${path.sep}_astro${path.sep}`) ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
    },
  });
  process.env.ASTRO_NODE_AUTOSTART = 'disabled';
  const { handler } = (await import(pathToFileURL(entry).href)) as {
    handler: (req: unknown, res: unknown, next: (err?: unknown) => void, locals: App.Locals) => Promise<void>;
  };
  app.setNotFoundHandler((request, reply) => {
    // Pages are rendered under their canonical path only: any other spelling of it is redirected there (the
    // same answer for everyone, so any cache may keep it) before Astro's router and the page rules see it.
    const spelling = checkCanonical(request.raw.url ?? '');
    if (spelling.kind === 'redirect') return reply.code(308).header('location', spelling.location).send();
    // Pages only answer GET and HEAD. Anything else would reach Astro with a body Fastify has already read (a JSON
    // body made it fail with a 500): refused here, in the API's error shape.
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return reply
        .code(405)
        .header('allow', 'GET, HEAD')
        .send({ message: 'This address only answers GET and HEAD requests', code: 'METHOD_NOT_ALLOWED' });
    }
    reply.hijack();
    const raw = request.raw;
    const res = reply.raw;
    const locals = { ctx, clientIp: request.ip } as App.Locals;
    const plain = (status: number, text: string) => {
      if (!res.headersSent) {
        res.statusCode = status;
        res.setHeader('content-type', 'text/plain; charset=utf-8');
      }
      res.end(text);
    };
    const render = (next: (err?: unknown) => void) =>
      handler(raw, res, next, locals).catch((err) => {
        ctx.logger.error({ err }, 'astro handler crashed');
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
    // A path no page answers gets the site's own 404 page (src/pages/404.astro sets the status), with its title and
    // layout, rather than a bare "Not found": Astro renders the /404 route for it; not under /_astro/, where only build
    // files live.
    const pageMayAnswer = !(raw.url ?? '').startsWith('/_astro/');
    const notFoundPage = () => {
      raw.url = '/404';
      render((err?: unknown) => {
        if (err) ctx.logger.error({ err }, 'astro render of the 404 page failed');
        plain(err ? 500 : 404, err ? 'Internal server error' : 'Not found');
      });
    };
    if (spelling.kind === 'invalid') return pageMayAnswer ? notFoundPage() : plain(404, 'Not found');
    render((err?: unknown) => {
      if (err) ctx.logger.error({ err }, 'astro render failed');
      if (!err && pageMayAnswer && !res.headersSent) return notFoundPage();
      plain(err ? 500 : 404, err ? 'Internal server error' : 'Not found');
    });
  });
}
