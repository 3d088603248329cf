import pino from 'pino';
import { loadConfig, type AppConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { SettingsService } from '../settings/settings.service.js';
import { createMailer } from '../mail/mailer.js';
import type { Money } from './money.js';

/**
 * What every money command (`npm run payments:reconcile`, `payments:renew`) does around its work: the configuration,
 * the database migrated to the latest schema, the settings, and the site's mailer (what a command settles, lapses or
 * reminds is mailed as the server would), all closed when the work ends; a failure is printed and exits 1.
 */
export function runMoneyCommand(
  build: (ctx: Money['ctx']) => Money,
  work: (money: Money) => Promise<void>,
  opts: { check?: (config: AppConfig) => void } = {},
): void {
  const run = async () => {
    const config = loadConfig();
    opts.check?.(config);
    const logger = pino({ level: config.logLevel });
    const database = await openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, pgSchema: config.pgSchema, namedStatements: config.pgNamedStatements });
    const mailer = createMailer(config, logger);
    try {
      await migrateToLatest(database.db, { schema: config.pgSchema });
      const settings = new SettingsService(database.db, config.settingsCacheMs);
      await work(build({ db: database.db, config, settings, logger, mailer }));
    } finally {
      await mailer.close();
      await database.close();
    }
  };
  run().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}

/** The value of `--name=value` on the command line. */
export function commandOption(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}
