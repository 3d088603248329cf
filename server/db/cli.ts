import { loadConfig } from '../config.js';
import { openDatabase } from './database.js';
import { migrateDown, migrateToLatest } from './migrate.js';

/** `npm run migrate` (up to latest) or `npm run migrate -- down` (one step back). The server also migrates at start. */
const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
try {
  if (process.argv[2] === 'down') {
    await migrateDown(database.db);
    console.log('rolled back one migration');
  } else {
    const applied = await migrateToLatest(database.db);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  }
} finally {
  await database.close();
}
