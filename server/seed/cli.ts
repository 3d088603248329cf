import pino from 'pino';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { formatCredentials, seedDemo } from './seed.js';

/**
 * `npm run seed` (tsx server/seed/cli.ts [--scale=N]): migrate the configured database (SQLITE_FILE / DATABASE_URL,
 * MEDIA_DIR for files) and load the demo site into it, unless it already has users.
 */
async function main() {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel });
  const scaleArg = process.argv.find((a) => a.startsWith('--scale='));
  const scale = scaleArg ? Number(scaleArg.slice('--scale='.length)) : 1;
  const database = await openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
  try {
    const applied = await migrateToLatest(database.db);
    if (applied.length) logger.info({ applied }, 'migrations applied');
    const result = await seedDemo({ db: database.db, config, logger, scale });
    if (result.seeded && result.credentials) {
      // Plain text as well, since JSON logs make the block hard to read.
      process.stdout.write(`\nDemo site loaded in ${((result.elapsedMs ?? 0) / 1000).toFixed(1)} s.\n${formatCredentials(result.credentials)}\n`);
    } else {
      process.stdout.write('The database already has users: demo data not loaded.\n');
    }
  } finally {
    await database.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
