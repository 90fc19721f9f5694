// Runs the whole suite against PostgreSQL: creates a fresh database for the run and a template
// database migrated once, runs `npm test` with TEST_DATABASE_URL pointing at the first and
// TEST_TEMPLATE_DATABASE naming the second (each test app gets a copy of the template:
// test/helpers/app.ts), and drops them all afterwards, pass or fail.
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { tsImport } from 'tsx/esm/api';

const adminUrl = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `rs_test_${Date.now()}_${process.pid}`;
const template = `${name}_template`;
const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
try {
  await admin.connect();
} catch (error) {
  console.error(`PostgreSQL is not reachable at ${adminUrl}: ${error.message}`);
  process.exit(1);
}
await admin.query(`create database ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
console.log(`PostgreSQL run on database ${name}`);
let status = 1;
try {
  await admin.query(`create database ${template}`);
  const { migrateTemplateDatabase } = await tsImport('../test/helpers/app.ts', import.meta.url);
  await migrateTemplateDatabase(url.toString(), template);
  const result = spawnSync('npm', ['test', '--', ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, TEST_DATABASE_URL: url.toString(), TEST_TEMPLATE_DATABASE: template },
  });
  status = result.status ?? 1;
} finally {
  // The template, and any test database a test process left behind when it died.
  const { rows } = await admin.query(
    "select datname from pg_database where datname like $1 || '\\_%' order by datname",
    [name],
  );
  for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`);
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
process.exit(status);
