// `npm run migrate`: the landed migrations and every module's own (src/modules/index.ts).
import { loadConfigOrExit } from './config.js';
import { createDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { moduleMigrations } from './module.js';
import { MODULES } from './modules/index.js';

const config = loadConfigOrExit();
const db = createDatabase(config.databaseUrl);
try {
  await migrateToLatest(db, moduleMigrations(MODULES));
  console.log('Database is at the latest migration.');
} finally {
  await db.close();
}
