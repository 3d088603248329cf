import pino from 'pino';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { SettingsService } from '../settings/settings.service.js';
import { createMailer } from '../mail/mailer.js';
import { createMoney } from './money.js';
import { reconcilePending } from './maintenance.service.js';

/**
 * `npm run payments:reconcile [-- --older-than=60]`: re-reads pending payments from their gateway and applies
 * what the provider says; cancels expired checkouts (stock back); closes lapsed subscriptions. See README.md.
 */
async function main() {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel });
  const arg = process.argv.find((a) => a.startsWith('--older-than='));
  const olderThanSec = arg ? Number(arg.slice('--older-than='.length)) : 60;
  const database = await openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, pgSchema: config.pgSchema });
  // What this command settles is mailed as the webhook would have (receipts, new subscribers).
  const mailer = createMailer(config, logger);
  try {
    await migrateToLatest(database.db, { schema: config.pgSchema });
    const settings = new SettingsService(database.db, config.settingsCacheMs);
    const money = createMoney({ db: database.db, config, settings, logger, mailer });
    const report = await reconcilePending(money, { olderThanSec });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    if (Object.keys(report.errors).length) process.exitCode = 2;
  } finally {
    await mailer.close();
    await database.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
