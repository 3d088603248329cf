import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { AppConfig } from '../config.js';
import type { Db } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { hashPassword } from '../auth/password.js';
import { createStorage, type Storage } from '../media/storage.js';
import { resolveFfmpeg } from '../media/ffmpeg.js';
import { SettingsService } from '../settings/settings.service.js';
import { seedAudience } from './audience.js';
import { demoCorrespondents, seedConversations } from './conversations.js';
import { buildPlan } from './plan.js';
import { generateMedia, MediaWriter } from './media.js';
import { audienceItems, insertPlan } from './inserts.js';

/**
 * Demo data: a believable site (12 performers with videos, galleries, products and posts with pictures (free, for
 * subscribers, pay-per-view); the site's posts, pages, banners, packages, a coupon) plus three accounts to log in
 * with. Media are real files generated locally (sharp for pictures, ffmpeg for clips). Refuses to run on a database
 * that already has users.
 *
 * This file runs it; the parts, each a file to read on its own:
 *  - ./content.ts   the words: performers, bios, titles, tags, posts, pages, the demo fans' names and comments;
 *  - ./plan.ts      every row with its id and time, built from the words with one seeded generator;
 *  - ./media.ts     the files: generated art, thumbnails, clips with posters and teasers, PDFs, into storage;
 *  - ./inserts.ts   the rows written in batches in one transaction;
 *  - ./audience.ts  demo fans subscribing, watching, liking and commenting through the app's own code;
 *  - ./conversations.ts  the demo performer's direct messages with the demo fan and a few subscribers;
 *  - ./factories.ts the row builders and their defaults, shared with the tests.
 *
 * Every number the site shows is counted from rows (docs/architecture.md, "Where the numbers come from"): nothing
 * here writes a made-up counter. The content counters (videos, photos, galleries, products of a performer, photos of
 * a gallery) are the rows planned (./plan.ts); subscribers, views, likes, favourites and comments come from a few dozen
 * demo fans who subscribe, watch, react and comment through the app's own code (./audience.ts).
 */


export interface SeedOptions {
  db: Db;
  config: AppConfig;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * 1 = the normal demo site. Below 1 shrinks the content per performer (quick tests, at least one of each);
   * above 1 adds performers (round(12 * scale)) with the full content each.
   */
  scale?: number;
  /** Defaults to config.demoPassword (DEMO_PASSWORD, else the default of server/config.ts). */
  password?: string;
  /** Where media go; defaults to local disk under config.mediaDir. */
  storage?: Storage;
}

export interface DemoAccount {
  email: string;
  username: string;
  role: 'admin' | 'performer' | 'user';
}

export interface DemoCredentials {
  password: string;
  admin: DemoAccount;
  performer: DemoAccount;
  fan: DemoAccount;
  /** The other performers log in with the same password. */
  otherPerformerEmails: string[];
}

export interface SeedResult {
  seeded: boolean;
  credentials?: DemoCredentials;
  /** Rows inserted per table. */
  counts?: Record<string, number>;
  elapsedMs?: number;
}

class SeedAbort extends Error {}

/** Loads the demo site into an empty database; a database that has any user is left untouched. */
export async function seedDemo(opts: SeedOptions): Promise<SeedResult> {
  const { db, config, logger } = opts;
  const started = Date.now();
  const scale = opts.scale ?? 1;
  if (!Number.isFinite(scale) || scale <= 0) throw new Error(`scale must be a positive number, got ${scale}`);

  if (await hasUsers(db)) {
    logger.info('database already has users, demo data not loaded');
    return { seeded: false };
  }

  const password = opts.password ?? config.demoPassword;
  const storage = opts.storage ?? (await createStorage(config));
  const ffmpeg = await resolveFfmpeg();
  logger.info({ scale, ffmpeg: ffmpeg.path, mediaDir: config.mediaDir }, 'seeding demo data');

  const plan = buildPlan(scale, Date.now());
  const media = new MediaWriter(storage);
  const workDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'seed-media-'));
  try {
    // The demo fans share one hash of the same password (a hash per account would add seconds of argon2 to every
    // start; they all log in with the demo password anyway).
    const fanIds = new Set(plan.demoFans.map((u) => u.id));
    const named = plan.users.filter((u) => !fanIds.has(u.id));
    const [hashes, fanHash] = await Promise.all([
      Promise.all(named.map(() => hashPassword(password))),
      hashPassword(password),
      generateMedia(plan, media, workDir),
    ]);
    named.forEach((u, i) => (u.passwordHash = hashes[i]!));
    plan.demoFans.forEach((u) => (u.passwordHash = fanHash));
    const mediaMs = Date.now() - started;

    // Read before the transaction: on SQLite the one connection is the transaction's until it ends.
    const settings = new SettingsService(db, 0);
    const money = {
      currency: String(await settings.get('currency')).toUpperCase(),
      commissionBps: Number(await settings.get('commissionBps')),
      checkoutExpiryMinutes: Math.max(1, Number(await settings.get('checkoutExpiryMinutes')) || 30),
    };
    const rowsStarted = Date.now();
    const counts = await db.transaction().execute(async (trx) => {
      // Another process may have created users while media were generated.
      if (await hasUsers(trx)) throw new SeedAbort();
      const inserted = await insertPlan(trx, plan, media.rows);
      const audience = await seedAudience(trx, {
        fans: plan.demoFans.map((u) => ({ id: u.id, email: u.email, name: u.name, createdAt: u.createdAt })),
        performers: plan.performers.map((p) => ({
          id: p.row.id, displayName: p.row.displayName, monthlyPrice: p.row.monthlyPrice ?? 0, yearlyPrice: p.row.yearlyPrice ?? 0, featured: p.row.featured === 1,
        })),
        items: audienceItems(plan),
        now: plan.now,
        scale,
        siteUrl: config.publicUrl.replace(/\/+$/, ''),
        appSecret: config.appSecret,
        ...money,
      });
      const performer = { id: plan.demoPerformer.id, name: plan.demoPerformer.name };
      const names = new Map(plan.users.map((u) => [u.id, u.name]));
      const correspondents = await demoCorrespondents(trx, performer.id, { id: plan.fan.id, name: plan.fan.name }, names, plan.now);
      const messages = await seedConversations(trx, { performer, fans: correspondents, now: plan.now });
      return { ...inserted, ...audience, messages };
    });
    const rowsMs = Date.now() - rowsStarted;

    const credentials: DemoCredentials = {
      password,
      admin: { email: plan.admin.email, username: plan.admin.username, role: 'admin' },
      performer: { email: plan.demoPerformer.email, username: plan.demoPerformer.username, role: 'performer' },
      fan: { email: plan.fan.email, username: plan.fan.username, role: 'user' },
      otherPerformerEmails: plan.performers.slice(1).map((p) => p.user.email),
    };
    const elapsedMs = Date.now() - started;
    logger.info({ counts, mediaMs, rowsMs, elapsedMs }, 'demo data loaded');
    // The logins for machines; a person reads them in the plain block the caller prints (formatCredentials).
    logger.info({ credentials: { ...credentials, otherPerformerEmails: undefined } }, 'demo accounts');
    return { seeded: true, credentials, counts, elapsedMs };
  } catch (err) {
    await media.removeAll();
    if (err instanceof SeedAbort) {
      logger.info('database already has users, demo data not loaded');
      return { seeded: false };
    }
    throw err;
  } finally {
    await fsp.rm(workDir, { recursive: true, force: true });
  }
}

/** The demo logins in plain words, for a person reading the terminal (printed after seeding). */
export function formatCredentials(c: DemoCredentials): string {
  const row = (label: string, a: DemoAccount) => `  ${label.padEnd(10)} ${a.email}`;
  return [
    `Demo logins (password for all: ${c.password})`,
    row('admin', c.admin),
    row('performer', c.performer),
    row('fan', c.fan),
    `  The other ${c.otherPerformerEmails.length} performers: <username>@example.com, same password.`,
  ].join('\n');
}

async function hasUsers(db: Db | Transaction<Database>): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
}

