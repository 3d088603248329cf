import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './database.js';
import * as m0001 from './migrations/0001_initial.js';
import * as m0002 from './migrations/0002_catalogue.js';
import * as m0003 from './migrations/0003_pipeline.js';
import * as m0004 from './migrations/0004_engagement.js';
import * as m0005 from './migrations/0005_money.js';
import * as m0006 from './migrations/0006_admin.js';
import * as m0007 from './migrations/0007_search.js';
import * as m0008 from './migrations/0008_featured.js';
import * as m0009 from './migrations/0009_test_money.js';
import * as m0010 from './migrations/0010_coupon_holds.js';
import * as m0011 from './migrations/0011_post_media.js';
import * as m0012 from './migrations/0012_signup_consent.js';
import * as m0013 from './migrations/0013_video_views.js';
import * as m0014 from './migrations/0014_search_documents.js';
import * as m0015 from './migrations/0015_recurring.js';
import * as m0016 from './migrations/0016_payout_requests.js';
import * as m0017 from './migrations/0017_money_mail.js';
import * as m0018 from './migrations/0018_offers.js';
import * as m0019 from './migrations/0019_follows.js';
import * as m0020 from './migrations/0020_partial_refunds.js';
import * as m0021 from './migrations/0021_messages.js';
import * as m0022 from './migrations/0022_tips.js';
import * as m0023 from './migrations/0023_notifications.js';
import * as m0024 from './migrations/0024_reports.js';
import * as m0025 from './migrations/0025_paid_messages.js';
import * as m0026 from './migrations/0026_verification.js';
import * as m0027 from './migrations/0027_co_performers.js';
import * as m0028 from './migrations/0028_takedowns.js';
import * as m0029 from './migrations/0029_watermarks.js';
import * as m0030 from './migrations/0030_data_rights.js';
import * as m0031 from './migrations/0031_subscriptions_by_user.js';
import * as m0032 from './migrations/0032_session_notices.js';
import * as m0033 from './migrations/0033_notifications_unpushed.js';
import * as m0034 from './migrations/0034_notifications_mailed_unread.js';

/** Migrations are listed here in order (static imports keep them working when bundled). */
const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_catalogue': m0002,
  '0003_pipeline': m0003,
  '0004_engagement': m0004,
  '0005_money': m0005,
  '0006_admin': m0006,
  '0007_search': m0007,
  '0008_featured': m0008,
  '0009_test_money': m0009,
  '0010_coupon_holds': m0010,
  '0011_post_media': m0011,
  '0012_signup_consent': m0012,
  '0013_video_views': m0013,
  '0014_search_documents': m0014,
  '0015_recurring': m0015,
  '0016_payout_requests': m0016,
  '0017_money_mail': m0017,
  '0018_offers': m0018,
  '0019_follows': m0019,
  '0020_partial_refunds': m0020,
  '0021_messages': m0021,
  '0022_tips': m0022,
  '0023_notifications': m0023,
  '0024_reports': m0024,
  '0025_paid_messages': m0025,
  '0026_verification': m0026,
  '0027_co_performers': m0027,
  '0028_takedowns': m0028,
  '0029_watermarks': m0029,
  '0030_data_rights': m0030,
  '0031_subscriptions_by_user': m0031,
  '0032_session_notices': m0032,
  '0033_notifications_unpushed': m0033,
  '0034_notifications_mailed_unread': m0034,
};

class StaticProvider implements MigrationProvider {
  async getMigrations() {
    return migrations;
  }
}

/**
 * `schema`: the PostgreSQL schema the database handle works in, when not the default. Kysely looks for its
 * migration tables in every schema unless told which one, so runs in parallel schemas (the tests) would see each
 * other's tables.
 */
export async function migrateToLatest(db: Db, opts: { schema?: string } = {}): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new StaticProvider(), ...(opts.schema ? { migrationTableSchema: opts.schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

export async function migrateDown(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticProvider() });
  const { error } = await migrator.migrateDown();
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
