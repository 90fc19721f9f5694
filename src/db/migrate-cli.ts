import { loadConfigOrExit } from '../config.js';
import { createDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';

const config = loadConfigOrExit();
const db = createDatabase(config.databaseUrl);
try {
  await migrateToLatest(db);
  console.log('Database is at the latest migration.');
} finally {
  await db.close();
}
