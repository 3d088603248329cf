import pino from 'pino';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { SettingsService } from '../settings/settings.service.js';
import { createMailer } from '../mail/mailer.js';
import { assertSandboxEnabled } from './gateways.js';
import { createInProcessMoney } from './money.js';
import { moneyClock } from './maintenance.service.js';

/**
 * `npm run payments:renew [-- --days=N] [-- --fail=<billing>[:times]]`: the sandbox provider's clock, for development
 * and demos. Without options it charges what is due now (the running server does the same every minute). `--days=N`
 * advances the clock a day at a time for N days, charging each renewal when its period ends and lapsing the
 * subscriptions whose grace period runs out on the way (dates in our tables are then those of the simulated days).
 * `--fail=sbs_…:2` makes that billing's next 2 attempts fail (`--fail=sbs_…:0` lets them succeed again).
 * Events are verified and applied in this process exactly as the webhook endpoint would (no server needed).
 */
const DAY_MS = 86_400_000;

function option(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

async function main() {
  const config = loadConfig();
  assertSandboxEnabled(config);
  const logger = pino({ level: config.logLevel });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, pgSchema: config.pgSchema });
  // What this command settles, lapses or reminds is mailed as the server would (receipts, renewals, reminders).
  const mailer = createMailer(config, logger);
  try {
    await migrateToLatest(database.db, { schema: config.pgSchema });
    const settings = new SettingsService(database.db, config.settingsCacheMs);
    const money = createInProcessMoney({ db: database.db, config, settings, logger, mailer });
    const fail = option('fail');
    if (fail) {
      const [id, times] = fail.split(':');
      if (!(await money.sandbox().failNext(id!, times === undefined ? 1 : Number(times)))) throw new Error(`no sandbox billing ${id}`);
    }
    const days = Number(option('days') ?? 0);
    if (!Number.isInteger(days) || days < 0 || days > 3660) throw new Error('--days takes a whole number of days (0 to 3660)');
    const start = Date.now();
    const totals = { renewed: 0, failed: 0, redelivered: 0, expired: 0, lapsed: 0, closed: 0, reminded: 0 };
    for (let day = 0; day <= days; day++) {
      const r = await moneyClock(money, new Date(start + day * DAY_MS));
      totals.renewed += r.renewals?.renewed ?? 0;
      totals.failed += r.renewals?.failed ?? 0;
      totals.redelivered += r.renewals?.redelivered ?? 0;
      totals.expired += r.expired;
      totals.lapsed += r.lapsed;
      totals.closed += r.closed;
      totals.reminded += r.reminded;
    }
    process.stdout.write(`${JSON.stringify({ until: new Date(start + days * DAY_MS).toISOString(), ...totals }, null, 2)}\n`);
  } finally {
    await mailer.close();
    await database.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
