import type { Logger } from 'pino';
import type { AppConfig } from './config.js';
import type { Db, Engine } from './db/database.js';
import type { SettingsService } from './settings/settings.service.js';
import type { GeoService } from './geo/geo.service.js';
import type { Redis } from 'ioredis';
import type { Storage } from './media/storage.js';
import type { CaptchaService } from './captcha/captcha.service.js';
import type { AuthService } from './auth/auth.service.js';
import type { Mailer } from './mail/mailer.js';
import type { JobQueue } from './jobs/queue.js';
import type { RealtimeHub } from './realtime/hub.js';
import type { DisplayReads } from './catalogue/display-cache.js';
import type { SessionCache } from './auth/session-cache.js';

/** Everything a route or a page needs, built once at start (server/app.ts) and handed down. */
export interface AppContext {
  config: AppConfig;
  db: Db;
  engine: Engine;
  logger: Logger;
  settings: SettingsService;
  geo: GeoService;
  /** Present when REDIS_URL is set: shared rate limits and the socket.io adapter. */
  redis: Redis | undefined;
  storage: Storage;
  captcha: CaptchaService;
  mailer: Mailer;
  auth: AuthService;
  /** Background jobs in the database (media processing); see server/jobs/README.md. */
  jobs: JobQueue;
  /**
   * Push events to browsers: `emitToUser(userId, event, payload)`, `emitToObject(objectType, objectId, event, payload)`
   * (server/realtime/README.md). Works across instances with REDIS_URL.
   */
  realtime: RealtimeHub;
  /** Cards' performer names, files and variants, shared by every request for PAGE_CACHE_MS (server/catalogue/display-cache.ts). */
  display: DisplayReads;
  /** Signed-in requests' sessions kept for SESSION_CACHE_MS (server/auth/session-cache.ts); absent when 0. */
  sessions: SessionCache | undefined;
}
