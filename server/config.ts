import path from 'node:path';
import proxyAddr from '@fastify/proxy-addr';
import { loadPipelineConfig, type PipelineConfig } from './media/pipeline/config.js';
import { CCBILL_DATALINK_URL, CCBILL_FLEXFORMS_URL } from './payments/ccbill.gateway.js';
import { NAMED_STATEMENTS_DEFAULT } from './db/pg-statement-names.js';

/** Runtime configuration, read once from the environment. Everything has a default that works on a bare machine. */
export interface AppConfig {
  env: 'production' | 'development' | 'test';
  host: string;
  port: number;
  /**
   * The listening socket's queue of connections not yet accepted (LISTEN_BACKLOG, default 4096; the kernel caps it at
   * net.core.somaxconn). Node's own default, 511, overflowed when 2,000 signed-in users arrived on a fresh process
   * (`LOAD_CROWD=1 npm run load`): the kernel dropped the connections past it, and their clients tried again after
   * 1, 3 and 7 seconds, or gave up.
   */
  listenBacklog: number;
  /** Where the JSON API is mounted; the browser reads it from the page (docs/product.md, Browser state). */
  apiBase: string;
  /** Public base URL of the site, used in emails, sitemaps and Open Graph tags. */
  publicUrl: string;
  /**
   * Whether PUBLIC_URL was set. Unset, `publicUrl` is only a guess (http://localhost:PORT), and the links that send a
   * visitor's browser back here (payment return pages) use the host the visitor is on when it names this machine
   * (server/http/site-url.ts).
   */
  publicUrlConfigured: boolean;
  /** socket.io path; the browser reads it from the page like apiBase. */
  socketPath: string;
  /** Address of the realtime endpoint when it is not this site's own origin (SOCKET_URL); empty: same origin. */
  socketUrl: string;
  /** Serve the Astro pages and client assets (SERVE_WEB, default 1; 0 = API, media and socket.io only). */
  serveWeb: boolean;
  databaseUrl: string | undefined;
  /** PostgreSQL schema to work in (PG_SCHEMA; unset = the server's default search_path, normally `public`). */
  pgSchema: string | undefined;
  sqliteFile: string;
  redisUrl: string | undefined;
  dataDir: string;
  mediaDir: string;
  /** Where media bytes live: STORAGE_DRIVER=local (default, under MEDIA_DIR) or s3 (the S3_* variables; server/media/s3-storage.ts). */
  storage: StorageConfig;
  /** Secret for signing media URLs and webhooks of the sandbox gateway. */
  appSecret: string;
  /**
   * SANDBOX_PAYMENTS=1: the built-in sandbox gateway (the buyer approves their own payment) also works when
   * NODE_ENV=production. For a staging site only: in production it is off, so nobody can pay themselves.
   */
  sandboxPayments: boolean;
  /** Where the sandbox provider posts its webhooks (SANDBOX_WEBHOOK_URL); unset = the address this server listens on. */
  sandboxWebhookUrl: string | undefined;
  /** Age after which a stored media file no `files` row names (or a `.part` temp file) is deleted (ORPHAN_FILE_AGE_MS, 1 h; 0 = never). */
  orphanFileAgeMs: number;
  /** Lifetime of a signed URL of a protected media file, seconds (MEDIA_URL_TTL_SEC, default 600; see server/access/README.md). */
  mediaUrlTtlSec: number;
  /**
   * Which proxies in front may say who the client is (TRUST_PROXY), read by server/http/client-ip.ts: a hop count
   * (`1` = exactly one proxy in front), or the addresses / CIDR ranges of the trusted proxies. 0 or [] = none: the
   * socket's peer is the client and X-Forwarded-* headers are ignored.
   */
  trustProxy: TrustProxy;
  countryHeader: string | undefined;
  /** pino level (LOG_LEVEL; default info, silent in tests). */
  logLevel: string;
  /** Whether LOG_LEVEL was set: `npm start` (--seed-demo) speaks plainly to a person unless it was (server/main.ts). */
  logLevelConfigured: boolean;
  /** Where captcha tokens are checked (CAPTCHA_VERIFY_URL; default Google reCAPTCHA's siteverify). */
  captchaVerifyUrl: string;
  /** The Astro build served by the web side (ASTRO_DIST, default `dist`, resolved against the working directory). */
  astroDist: string;
  /**
   * Stripe keys from the environment (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET); when set they win over the ones an
   * admin stored in the settings (server/payments/gateways.ts). Unset: the settings' keys.
   */
  stripe: { secretKey: string | undefined; webhookSecret: string | undefined };
  /**
   * CCBill's addresses: the FlexForms payment links (CCBILL_FLEXFORMS_URL) and the DataLink subscription management
   * script (CCBILL_DATALINK_URL). CCBill's own by default; a test points them at a stand-in.
   */
  ccbill: { flexFormsUrl: string; datalinkUrl: string };
  /** Where ffmpeg and ffprobe are (FFMPEG_PATH, FFPROBE_PATH, else looked up on PATH; server/media/ffmpeg.ts). */
  mediaTools: MediaTools;
  /** The password of every demo login the seed creates (DEMO_PASSWORD; default DEFAULT_DEMO_PASSWORD). */
  demoPassword: string;
  settingsCacheMs: number;
  /** How long the `total` of a public list is reused for the same filters (LIST_COUNT_CACHE_MS; 0 in tests). */
  listCountCacheMs: number;
  /** PostgreSQL: how many statement texts run as named statements (PG_NAMED_STATEMENTS, 500; 0 = none; server/db/pg-statement-names.ts). */
  pgNamedStatements: number;
  /** How long a signed-in request's session is kept in memory (SESSION_CACHE_MS, 60 s; 0 = off; server/auth/session-cache.ts). */
  sessionCacheMs: number;
  /**
   * How long anonymous GET answers (pages, public lists) are reused by the micro-cache, and cards' performer names and
   * files by the display cache (server/catalogue/display-cache.ts) (PAGE_CACHE_MS; 1 s, 0 in tests and = off).
   */
  pageCacheMs: number;
  /** How long a shutdown waits for in-flight requests before closing their connections (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /**
   * How long a new process replays common public reads before it serves (WARM_UP_MS; 4 s in production, else 0 = off;
   * server/http/warm-up.ts).
   */
  warmUpMs: number;
  /** Outgoing mail server, `smtp://user:pass@host:port` (or smtps://); unset = mails are written to `${dataDir}/outbox/` (refused in production). */
  smtpUrl: string | undefined;
  /** From address of every mail, e.g. `Fanstage <no-reply@example.com>`. */
  mailFrom: string;
  /** Direct messages one user may send (server/messages/README.md), RATE_LIMIT_MESSAGES, default 30 a minute. */
  messageSendLimit: Limit;
  /**
   * How a mass message is paced (server/messages/README.md): recipients delivered per job run (MASS_MESSAGE_BATCH,
   * default 50) and the pause before the next run, ms (MASS_MESSAGE_PAUSE_MS, default 1000): about 3,000 recipients a
   * minute, so one mass message never floods the database or the sockets. The benchmark sets the pause to 0 to
   * measure the delivery itself (tests/bench/mass-message.ts).
   */
  massMessages: MassMessagePacing;
  /** Prefixed to every Redis key the app writes (rate limits, login failures), so several sites or test runs can share one Redis. */
  redisKeyPrefix: string;
  /** Abuse limits of the account endpoints (see server/auth/README.md). */
  authLimits: AuthLimits;
  /** Reports a signed-in user may send (RATE_LIMIT_REPORTS, `max/seconds`, default 10 an hour; docs/product.md, Reports). */
  reportLimit: Limit;
  /** Data exports asked for and account deletions tried per account (RATE_LIMIT_DATA_RIGHTS, `max/seconds`, default 5 an hour). */
  dataRightsLimit: Limit;
  /** Upload limits, job queue and video processing (server/media/pipeline/config.ts lists the variables). */
  pipeline: PipelineConfig;
}

export interface MassMessagePacing {
  batch: number;
  pauseMs: number;
}

/** A number of proxy hops, or a list of trusted proxy addresses and CIDR ranges (see parseTrustProxy). */
export type TrustProxy = number | string[];

/** A fixed-window limit: at most `max` events per `windowSec` seconds. Env form: `max/seconds`, e.g. `10/900`. */
export interface Limit {
  max: number;
  windowSec: number;
}

export interface AuthLimits {
  /** Login attempts per client IP, whatever the account: against spraying many accounts (RATE_LIMIT_LOGIN_IP). */
  loginPerIp: Limit;
  /** Login attempts per account identifier from one client IP, successful or not (RATE_LIMIT_LOGIN_ACCOUNT). */
  loginPerAccount: Limit;
  /**
   * Failed logins (LOGIN_FAILURE_LIMIT, `max/seconds`): per (account, IP), from the `max`-th failure on each one
   * makes that pair wait 2^(n - max + 1) s (2, 4, 8 … at most `seconds`); a pair is forgotten `seconds` after its last failure.
   * An account with `max` failures from anywhere asks for a captcha when one is configured. Never a lock.
   */
  loginFailures: Limit;
  /** Registrations per IP (RATE_LIMIT_REGISTER_IP) and per email (RATE_LIMIT_REGISTER_ACCOUNT). */
  registerPerIp: Limit;
  registerPerAccount: Limit;
  /** Mail-sending requests (forgot password, resend verification) per IP and per email (RATE_LIMIT_EMAIL_IP, RATE_LIMIT_EMAIL_ACCOUNT). */
  emailPerIp: Limit;
  emailPerAccount: Limit;
  /** Password changes (wrong current passwords included) per signed-in user (RATE_LIMIT_PASSWORD_CHANGE). */
  passwordChangePerUser: Limit;
}

/** The APP_SECRET used when none is set: public (it is in this file), so development only. */
export const DEFAULT_APP_SECRET = 'dev-only-secret-change-me';

/** The demo logins' password when DEMO_PASSWORD is not set (printed by `npm start`). */
export const DEFAULT_DEMO_PASSWORD = 'demo-password-123';

/** Where the media tools are looked for, in server/media/ffmpeg.ts's order. */
export interface MediaTools {
  /** FFMPEG_PATH: the ffmpeg binary to use; unset = `ffmpeg` on PATH, else the optional npm static build. */
  ffmpegPath: string | undefined;
  /** FFPROBE_PATH: the ffprobe binary; unset = the one next to ffmpeg, else `ffprobe` on PATH, else none (ffmpeg probes). */
  ffprobePath: string | undefined;
  /** PATH: the directories searched for both. */
  searchPath: string;
}

/**
 * Where things are on this machine (PATH, FFMPEG_PATH, FFPROBE_PATH, ASTRO_DIST): from `env`, else this process's own
 * environment, so a configuration made from a few variables (the tests' apps) still finds the tools and the build.
 */
function onThisMachine(env: NodeJS.ProcessEnv, name: 'PATH' | 'FFMPEG_PATH' | 'FFPROBE_PATH' | 'ASTRO_DIST'): string | undefined {
  return env[name] ?? process.env[name];
}

/** The media tools' places from the environment; what loadConfig puts in `config.mediaTools`. */
export function loadMediaTools(env: NodeJS.ProcessEnv = process.env): MediaTools {
  return {
    ffmpegPath: onThisMachine(env, 'FFMPEG_PATH') || undefined,
    ffprobePath: onThisMachine(env, 'FFPROBE_PATH') || undefined,
    searchPath: onThisMachine(env, 'PATH') ?? '',
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<AppConfig> = {}): AppConfig {
  const dataDir = path.resolve(env.DATA_DIR ?? 'data');
  const port = Number(env.PORT ?? 4321);
  const nodeEnv = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const base: AppConfig = {
    env: nodeEnv,
    host: env.HOST ?? '0.0.0.0',
    port,
    listenBacklog: parseWhole(env.LISTEN_BACKLOG, 4096, 1, 'LISTEN_BACKLOG'),
    apiBase: normaliseBase(env.API_BASE ?? '/api'),
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ''),
    publicUrlConfigured: Boolean(env.PUBLIC_URL),
    socketPath: env.SOCKET_PATH ?? '/socket.io',
    socketUrl: env.SOCKET_URL ?? '',
    serveWeb: env.SERVE_WEB !== '0' && env.SERVE_WEB !== 'false',
    databaseUrl: env.DATABASE_URL || undefined,
    pgSchema: env.PG_SCHEMA || undefined,
    sqliteFile: path.resolve(env.SQLITE_FILE ?? path.join(dataDir, 'site.db')),
    redisUrl: env.REDIS_URL || undefined,
    dataDir,
    mediaDir: path.resolve(env.MEDIA_DIR ?? path.join(dataDir, 'media')),
    storage: parseStorage(env),
    // An empty APP_SECRET is as unsafe as none: both fall back to the public default, which production refuses.
    appSecret: env.APP_SECRET || DEFAULT_APP_SECRET,
    sandboxPayments: env.SANDBOX_PAYMENTS === '1' || env.SANDBOX_PAYMENTS === 'true',
    sandboxWebhookUrl: env.SANDBOX_WEBHOOK_URL || undefined,
    orphanFileAgeMs: Number(env.ORPHAN_FILE_AGE_MS ?? 3_600_000),
    mediaUrlTtlSec: Number(env.MEDIA_URL_TTL_SEC ?? 600),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    countryHeader: env.COUNTRY_HEADER?.toLowerCase() || undefined,
    logLevel: env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
    logLevelConfigured: env.LOG_LEVEL !== undefined,
    captchaVerifyUrl: env.CAPTCHA_VERIFY_URL ?? 'https://www.google.com/recaptcha/api/siteverify',
    astroDist: path.resolve(onThisMachine(env, 'ASTRO_DIST') ?? 'dist'),
    stripe: { secretKey: env.STRIPE_SECRET_KEY || undefined, webhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined },
    ccbill: { flexFormsUrl: env.CCBILL_FLEXFORMS_URL || CCBILL_FLEXFORMS_URL, datalinkUrl: env.CCBILL_DATALINK_URL || CCBILL_DATALINK_URL },
    mediaTools: loadMediaTools(env),
    demoPassword: env.DEMO_PASSWORD || DEFAULT_DEMO_PASSWORD,
    settingsCacheMs: Number(env.SETTINGS_CACHE_MS ?? 2000),
    shutdownGraceMs: Number(env.SHUTDOWN_GRACE_MS ?? 10_000),
    warmUpMs: parseWhole(env.WARM_UP_MS, env.NODE_ENV === 'production' ? 4000 : 0, 0, 'WARM_UP_MS'),
    pageCacheMs: Number(env.PAGE_CACHE_MS ?? (env.NODE_ENV === 'test' ? 0 : 1000)),
    listCountCacheMs: Number(env.LIST_COUNT_CACHE_MS ?? (env.NODE_ENV === 'test' ? 0 : 5000)),
    // On in tests too: every test of a logout, a suspension or a changed account runs through it.
    pgNamedStatements: parseWhole(env.PG_NAMED_STATEMENTS, NAMED_STATEMENTS_DEFAULT, 0, 'PG_NAMED_STATEMENTS'),
    sessionCacheMs: parseWhole(env.SESSION_CACHE_MS, 60_000, 0, 'SESSION_CACHE_MS'),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM ?? 'Fanstage <no-reply@localhost>',
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? '',
    messageSendLimit: parseLimit(env.RATE_LIMIT_MESSAGES, '30/60', 'RATE_LIMIT_MESSAGES'),
    massMessages: {
      batch: parseWhole(env.MASS_MESSAGE_BATCH, 50, 1, 'MASS_MESSAGE_BATCH'),
      pauseMs: parseWhole(env.MASS_MESSAGE_PAUSE_MS, 1000, 0, 'MASS_MESSAGE_PAUSE_MS'),
    },
    authLimits: {
      loginPerIp: parseLimit(env.RATE_LIMIT_LOGIN_IP, '30/900', 'RATE_LIMIT_LOGIN_IP'),
      loginPerAccount: parseLimit(env.RATE_LIMIT_LOGIN_ACCOUNT, '15/900', 'RATE_LIMIT_LOGIN_ACCOUNT'),
      loginFailures: parseLimit(env.LOGIN_FAILURE_LIMIT, '5/900', 'LOGIN_FAILURE_LIMIT'),
      registerPerIp: parseLimit(env.RATE_LIMIT_REGISTER_IP, '10/3600', 'RATE_LIMIT_REGISTER_IP'),
      registerPerAccount: parseLimit(env.RATE_LIMIT_REGISTER_ACCOUNT, '3/3600', 'RATE_LIMIT_REGISTER_ACCOUNT'),
      emailPerIp: parseLimit(env.RATE_LIMIT_EMAIL_IP, '10/3600', 'RATE_LIMIT_EMAIL_IP'),
      emailPerAccount: parseLimit(env.RATE_LIMIT_EMAIL_ACCOUNT, '3/3600', 'RATE_LIMIT_EMAIL_ACCOUNT'),
      passwordChangePerUser: parseLimit(env.RATE_LIMIT_PASSWORD_CHANGE, '10/900', 'RATE_LIMIT_PASSWORD_CHANGE'),
    },
    reportLimit: parseLimit(env.RATE_LIMIT_REPORTS, '10/3600', 'RATE_LIMIT_REPORTS'),
    dataRightsLimit: parseLimit(env.RATE_LIMIT_DATA_RIGHTS, '5/3600', 'RATE_LIMIT_DATA_RIGHTS'),
    pipeline: loadPipelineConfig(env),
  };
  // An address given in code (overrides) is as deliberate as PUBLIC_URL.
  const config = { ...base, ...(overrides.publicUrl !== undefined ? { publicUrlConfigured: true } : {}), ...overrides };
  // The sandbox's webhook secret is derived from APP_SECRET: with the public default anyone could sign a "paid"
  // event. Wherever the sandbox is deliberately switched on, the secret must be a real one.
  if (config.sandboxPayments && config.appSecret === DEFAULT_APP_SECRET) {
    throw new Error('SANDBOX_PAYMENTS=1 needs APP_SECRET set to a long random value: with the default secret anyone can sign sandbox webhooks and mark payments paid');
  }
  if (config.env === 'production' && config.appSecret === DEFAULT_APP_SECRET) {
    throw new Error('APP_SECRET must be set in production');
  }
  if (config.env === 'production' && !config.smtpUrl) {
    // Without it, mails (with their single-use reset and verification links) go to the outbox folder and the log.
    throw new Error('SMTP_URL must be set in production (e.g. smtp://user:pass@mail.example.com:587): without it, password reset and verification links would be written to the log and to DATA_DIR/outbox instead of being mailed');
  }
  return config;
}

export type StorageConfig =
  | { driver: 'local' }
  | {
      driver: 's3';
      /** S3_BUCKET (required). */
      bucket: string;
      /** S3_REGION (else AWS_REGION, else us-east-1). */
      region: string;
      /** S3_ENDPOINT: an S3-compatible server (MinIO, R2, Ceph …); unset = AWS. */
      endpoint: string | undefined;
      /** S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY; unset = the AWS SDK's default credential chain. */
      accessKeyId: string | undefined;
      secretAccessKey: string | undefined;
      /** S3_FORCE_PATH_STYLE=1: `endpoint/bucket/key` addressing (most self-hosted servers). */
      forcePathStyle: boolean;
      /** S3_PREFIX: prepended to every key, e.g. `site-a/`. */
      prefix: string;
    };

function parseStorage(env: NodeJS.ProcessEnv): StorageConfig {
  const driver = env.STORAGE_DRIVER || 'local';
  if (driver === 'local') return { driver };
  if (driver !== 's3') throw new Error(`STORAGE_DRIVER must be "local" or "s3", got "${driver}"`);
  if (!env.S3_BUCKET) throw new Error('STORAGE_DRIVER=s3 needs S3_BUCKET');
  if (!env.S3_ACCESS_KEY_ID !== !env.S3_SECRET_ACCESS_KEY) throw new Error('Set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither');
  return {
    driver,
    bucket: env.S3_BUCKET,
    region: env.S3_REGION || env.AWS_REGION || 'us-east-1',
    endpoint: env.S3_ENDPOINT || undefined,
    accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === '1' || env.S3_FORCE_PATH_STYLE === 'true',
    prefix: env.S3_PREFIX ?? '',
  };
}

/**
 * TRUST_PROXY: unset, `0` or `false` = no proxy; a whole number = that many proxies in front (the client is the
 * address the outermost one saw); else a comma-separated list of proxy addresses or CIDR ranges (e.g.
 * `10.0.0.0/8, 127.0.0.1`), or proxy-addr's names `loopback`, `linklocal`, `uniquelocal`.
 * `true` (which used to mean "believe every hop") is refused: with it any client could name its own address
 * in X-Forwarded-For and pick its rate-limit bucket, country and audit IP.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '' || value === 'false' || value === '0') return 0;
  if (value === 'true') {
    throw new Error(
      'TRUST_PROXY=true (trust every hop) is no longer accepted: it lets any client forge its address. Set the number of proxies in front of the app (e.g. TRUST_PROXY=1 behind one load balancer) or their addresses/CIDR ranges (e.g. TRUST_PROXY=10.0.0.0/8,127.0.0.1)',
    );
  }
  if (/^\d+$/.test(value)) return Number(value);
  const list = value.split(',').map((v) => v.trim()).filter(Boolean);
  try {
    // Validated here so a typo stops the start instead of silently trusting nothing (or too much).
    proxyAddr.compile(list);
  } catch (err) {
    throw new Error(`TRUST_PROXY must be a hop count (e.g. 1) or a comma-separated list of proxy addresses or CIDR ranges, got "${raw}": ${(err as Error).message}`);
  }
  return list;
}

function parseLimit(raw: string | undefined, fallback: string, name: string): Limit {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(raw || fallback);
  if (!m || Number(m[2]) < 1) throw new Error(`${name} must look like "max/seconds" (e.g. ${fallback}), got "${raw}"`);
  return { max: Number(m[1]), windowSec: Number(m[2]) };
}

/** A whole number of at least `min`, or the default when unset; a typo stops the start instead of pacing nothing. */
function parseWhole(raw: string | undefined, fallback: number, min: number, name: string): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number of at least ${min}, got "${raw}"`);
  return n;
}

function normaliseBase(base: string): string {
  const withSlash = base.startsWith('/') ? base : `/${base}`;
  return withSlash.replace(/\/+$/, '') || '/api';
}
