// One instance of the service in a child process, for crash tests and what only a process of
// its own can show (startChild in app.ts): it serves on loopback, prints its URL as one JSON
// line, and runs until killed.
import { executionAsyncId } from 'node:async_hooks';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase } from '../../src/db/database.js';
import { TEST_ENV } from './app.js';

const schema = process.env.CHILD_DATABASE_SCHEMA;
const env = JSON.parse(process.env.CHILD_ENV ?? '{}') as Record<string, string>;
const db = createDatabase(process.env.CHILD_DATABASE_URL!, schema ? { searchPath: schema } : {});
const app = await buildApp(loadConfig({ ...TEST_ENV, ...env }), { db, logger: false });
// Asked with SIGUSR2, prints the async id of a promise continuation: 0 while no async context
// store was ever entered in the process (Node 20 hooks every promise for good once one was).
// Listened for before the URL is out: a signal arriving first would end the process.
process.on('SIGUSR2', async () => {
  await null;
  process.stdout.write(`${JSON.stringify({ continuationAsyncId: executionAsyncId() })}\n`);
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url })}\n`);
