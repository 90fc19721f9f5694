// One instance of the service in a child process, for crash tests (startChild in app.ts): it
// serves on loopback, prints its URL as one JSON line, and runs until killed.
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase } from '../../src/db/database.js';
import { TEST_ENV } from './app.js';

const schema = process.env.CHILD_DATABASE_SCHEMA;
const env = JSON.parse(process.env.CHILD_ENV ?? '{}') as Record<string, string>;
const db = createDatabase(process.env.CHILD_DATABASE_URL!, schema ? { searchPath: schema } : {});
const app = await buildApp(loadConfig({ ...TEST_ENV, ...env }), { db, logger: false });
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url })}\n`);
