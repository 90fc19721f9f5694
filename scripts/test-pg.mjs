// Runs the whole suite against PostgreSQL: creates a fresh database, runs `npm test`
// with TEST_DATABASE_URL pointing at it, and drops it afterwards, pass or fail.
import { spawnSync } from 'node:child_process';
import pg from 'pg';

const adminUrl = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `rs_test_${Date.now()}_${process.pid}`;
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
  const result = spawnSync('npm', ['test', '--', ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, TEST_DATABASE_URL: url.toString() },
  });
  status = result.status ?? 1;
} finally {
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
process.exit(status);
