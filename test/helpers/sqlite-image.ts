// The migrated SQLite database every test app starts from, as an image (`serialize()`): made
// once per `npm test` run when the runner's bundle holds one (scripts/test-build.mjs runs this
// file as a process and leaves the image beside the bundle), else once per test process.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { createDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { moduleMigrations } from '../../src/module.js';
import { MODULES } from '../../src/modules/index.js';

/** Where the run's image lies in the bundle's folder (TEST_BUILD_DIR). */
export const SQLITE_IMAGE_FILE = 'migrated.sqlite';

/** A fresh in-memory SQLite database migrated to the latest migration, serialized. */
async function migrate(): Promise<Buffer> {
  const connection = new SQLite(':memory:');
  const db = createDatabase('sqlite::memory:', { sqliteConnection: connection });
  await migrateToLatest(db, moduleMigrations(MODULES));
  const image = connection.serialize();
  await db.close();
  return image;
}

let image: Promise<Buffer> | undefined;

/** The migrated image: the run's when there is one, else migrated once in this process, at first use. */
export function migratedSqliteImage(): Promise<Buffer> {
  image ??= (async () => {
    const built = process.env.TEST_BUILD_DIR;
    const file = built ? join(built, SQLITE_IMAGE_FILE) : undefined;
    return file && existsSync(file) ? readFileSync(file) : migrate();
  })();
  return image;
}

// Run as a process (`node <bundle>/test/helpers/sqlite-image.js <file>`): writes the image.
const target = process.argv[1]?.endsWith('sqlite-image.js') ? process.argv[2] : undefined;
if (target) void migrate().then((migrated) => writeFileSync(target, migrated));
