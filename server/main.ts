import pino from 'pino';
import { loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { buildApp } from './app.js';

/**
 * `tsx server/main.ts [--seed-demo [--scale=0.2]]`: migrate, optionally load demo data into an empty database, serve.
 * SIGTERM/SIGINT drain in-flight requests, then close sockets, Redis and the database.
 *
 * Logs are JSON lines (for log collectors). `--seed-demo` is how a newcomer tries the site (`npm start`), so it speaks
 * plainly instead: a line while the demo data loads, then where the site is and the demo logins, and only warnings
 * and errors as JSON unless LOG_LEVEL asks for more. `npm run serve` and production log everything as JSON.
 */
async function main() {
  const config = loadConfig();
  const demo = process.argv.includes('--seed-demo');
  const forPerson = demo && !config.logLevelConfigured;
  const logger = pino({ level: forPerson ? 'warn' : config.logLevel });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, pgSchema: config.pgSchema, namedStatements: config.pgNamedStatements });
  const applied = await migrateToLatest(database.db, { schema: config.pgSchema });
  if (applied.length) logger.info({ applied }, 'migrations applied');
  let welcome: string | null = null;
  if (demo) {
    if (forPerson) process.stdout.write('Preparing the demo site (the first start makes the demo media: about half a minute)...\n');
    const { formatCredentials, seedDemo } = await import('./seed/seed.js');
    const scaleArg = process.argv.find((a) => a.startsWith('--scale='));
    const result = await seedDemo({ db: database.db, config, logger, scale: scaleArg ? Number(scaleArg.slice('--scale='.length)) : 1 });
    welcome = result.credentials
      ? formatCredentials(result.credentials)
      : 'The database already had users, so no demo data was loaded: the demo logins printed the first time still work.';
  }
  // Statistics for what was loaded since they were last gathered (the demo data, a restore: pg_restore gathers none),
  // before the first request is planned without them.
  await database.optimize();
  const built = await buildApp({ config, database, logger, web: config.serveWeb });
  await built.app.listen({ host: config.host, port: config.port, backlog: config.listenBacklog });
  logger.info({ url: config.publicUrl, engine: database.engine }, 'site is up');
  if (welcome !== null) {
    // Written directly, whatever LOG_LEVEL says: this is the first thing a newcomer reads.
    process.stdout.write(`\nFanstage is running at ${config.publicUrl}\n\n${welcome}\n\nStop it with Ctrl+C.\n\n`);
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining and shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long, exiting');
      process.exit(1);
    }, 15_000);
    timer.unref();
    try {
      await built.close();
      logger.info('shut down cleanly');
      if (forPerson) process.stdout.write('Fanstage stopped.\n');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
