import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import type { FastifyInstance, FastifyReply, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { z } from 'zod';
import { type BuildOptions, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { moduleMigrations } from '../../src/module.js';
import { issueLink } from '../../src/modules/auth/links.js';
import { MODULES } from '../../src/modules/index.js';
import { nodeArgsFor } from './entry-points.js';
import { client, expectStatus } from './http.js';
import { migratedSqliteImage } from './sqlite-image.js';

/** The schema of PostgreSQL test databases: the template's, migrated there once a run. */
const TEST_SCHEMA = 'app';

/** Where a second handle on each PostgreSQL test database connects (with `searchPath: db.schema`). */
const urls = new WeakMap<Db, string>();

/**
 * A fresh database at the latest migration for one app, a copy of one migrated once:
 * an in-memory SQLite copy of the run's migrated image (test/helpers/sqlite-image.ts), or on PostgreSQL (the
 * `npm run test:pg` run) a database of its own made from the run's template database.
 */
export async function createTestDatabase(): Promise<{ db: Db; drop: () => Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const connection = new SQLite(await migratedSqliteImage());
    const db = createDatabase('sqlite::memory:', { sqliteConnection: connection });
    return { db, drop: () => db.close() };
  }
  const template = process.env.TEST_TEMPLATE_DATABASE;
  return template ? copyOfTemplate(url, template) : schemaOfItsOwn(url);
}

/**
 * The URL another handle (a second instance, a raw client) opens `db` of
 * createTestDatabase or createTestApp with, on PostgreSQL; its schema is `db.schema`.
 */
export function testDatabaseUrl(db: Db): string {
  const url = urls.get(db);
  if (!url) throw new Error('Not a PostgreSQL test database');
  return url;
}

/**
 * Migrates the run's template database (scripts/test-pg.mjs makes it before the tests start)
 * into the test schema, then closes it to connections: CREATE DATABASE copies it only while
 * nobody is connected.
 */
export async function migrateTemplateDatabase(serverUrl: string, template: string): Promise<void> {
  const url = databaseUrl(serverUrl, template);
  await adminQuery(url, `create schema ${TEST_SCHEMA}`);
  const db = createDatabase(url, { searchPath: TEST_SCHEMA });
  try {
    await migrateToLatest(db, moduleMigrations(MODULES));
  } finally {
    await db.close();
  }
  await adminQuery(serverUrl, `alter database ${template} allow_connections false`);
}

/** A database of its own, copied from the migrated template (about 0.2 s where migrating takes 1.5). */
async function copyOfTemplate(serverUrl: string, template: string) {
  const name = `${new URL(serverUrl).pathname.slice(1)}_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${name} template ${template}`);
  const url = databaseUrl(serverUrl, name);
  const db = createDatabase(url, { searchPath: TEST_SCHEMA, poolSize: 20 });
  urls.set(db, url);
  return {
    db,
    drop: async () => {
      await db.close();
      await adminQuery(serverUrl, `drop database ${name} with (force)`);
    },
  };
}

/** Without a template (TEST_DATABASE_URL set by hand): a schema of its own, migrated by buildApp. */
async function schemaOfItsOwn(url: string) {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await adminQuery(url, `create schema ${schema}`);
  const db = createDatabase(url, { searchPath: schema, poolSize: 20 });
  urls.set(db, url);
  return {
    db,
    drop: async () => {
      await db.close();
      // pg-boss keeps its tables in a schema beside the app's (src/jobs).
      await adminQuery(url, `drop schema if exists ${schema}_jobs cascade; drop schema ${schema} cascade`);
    },
  };
}

function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Statements on a connection of its own (DDL the app's pool must not hold). */
async function adminQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * The service serialises responses without validating them (src/http/serialize.ts),
 * so the tests do: every JSON response with a schema for its status must encode
 * under that schema (types, enums, refinements, required keys), and the body sent
 * must be exactly what Zod's encode + JSON.stringify made of the same payload (no
 * key dropped, none leaked, nothing changed). A failure answers 500 and is kept,
 * and `assertResponsesMatched` throws it when the app closes.
 */
export function checkResponsesAgainstSchemas(app: FastifyInstance) {
  const failures: string[] = [];
  const expected = new WeakMap<FastifyReply, string>();
  const fail = (message: string) => {
    failures.push(message);
    return new Error(`Response schema check: ${message}`);
  };

  app.addHook('preSerialization', async (request, reply, payload) => {
    const schema = responseSchema(request.routeOptions.schema?.response, reply.statusCode);
    if (!schema) return payload;
    const encoded = z.safeEncode(schema, payload);
    const where = `${request.method} ${request.routeOptions.url} ${reply.statusCode}`;
    if (!encoded.success) throw fail(`${where} does not match its schema: ${z.prettifyError(encoded.error)}`);
    expected.set(reply, JSON.stringify(encoded.data));
    return payload;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const wanted = expected.get(reply);
    if (wanted === undefined) return payload;
    expected.delete(reply);
    if (payload !== wanted) {
      throw fail(
        `${request.method} ${request.routeOptions.url} ${reply.statusCode} sent ${String(payload).slice(0, 500)}\nbut its schema makes ${wanted.slice(0, 500)}`,
      );
    }
    return payload;
  });

  return {
    failures,
    /** Throws when any response so far broke its schema. */
    assertResponsesMatched() {
      if (failures.length > 0) throw new Error(`Responses that broke their schema:\n${failures.join('\n')}`);
    },
  };
}

/** The schema fastify serialises a status with: exact status, then `4xx` style, then `default`. */
function responseSchema(responses: unknown, status: number): z.ZodType | undefined {
  if (!responses || typeof responses !== 'object') return undefined;
  const byStatus = responses as Record<string, unknown>;
  const entry = byStatus[status] ?? byStatus[`${String(status)[0]}xx`] ?? byStatus.default;
  return entry instanceof z.ZodType ? entry : undefined;
}

export const TEST_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_MAX: '100000',
  // Every test app registers its users and takes its holds from one address; the limit tests set their own.
  REGISTER_RATE_LIMIT_MAX: '100000',
  PUBLIC_HOLD_IP_MAX: '100000',
  // Tests that need pg-boss (several instances, one database) ask for JOB_QUEUE=auto.
  JOB_QUEUE: 'in-process',
  // Delivery tests run the outbox's consumers themselves; the ones about latency turn it on.
  OUTBOX_POLL_MS: '0',
  PUBLIC_URL: 'http://service.test',
  FRONTEND_URL: 'http://frontend.test',
};

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  close: () => Promise<void>;
}

export async function createTestApp(
  env: Record<string, string> = {},
  options: Pick<BuildOptions, 'frontendRoot'> = {},
): Promise<TestApp> {
  const { db, drop } = await createTestDatabase();
  const config = loadConfig({ ...TEST_ENV, ...env });
  const app = await buildApp(config, { ...options, db, logger: false });
  const responses = checkResponsesAgainstSchemas(app);
  await app.ready();
  return {
    app,
    db,
    close: async () => {
      await app.close();
      await drop();
      responses.assertResponsesMatched();
    },
  };
}

/**
 * Two databases handles on one database, as two app instances have: a shared temp
 * file on SQLite, the same test database on PostgreSQL.
 */
export async function sharedDatabase(): Promise<{ first: Db; second: Db; drop(): Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) {
    const { db, drop } = await createTestDatabase();
    const second = createDatabase(testDatabaseUrl(db), {
      ...(db.schema ? { searchPath: db.schema } : {}),
      poolSize: 5,
    });
    return {
      first: db,
      second,
      drop: async () => {
        await second.close();
        await drop();
      },
    };
  }
  const path = join(tmpdir(), `mcp-shared-${process.pid}-${randomBytes(4).toString('hex')}.db`);
  const first = createDatabase(`sqlite:${path}`);
  const second = createDatabase(`sqlite:${path}`);
  return {
    first,
    second,
    drop: async () => {
      await first.close();
      await second.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    },
  };
}

/** Two app instances on one database (`twoInstances`). */
export interface TwoInstances {
  first: FastifyInstance;
  second: FastifyInstance;
  db: Db;
  close(): Promise<void>;
}

/**
 * Two instances of the service on one database (the full app of each, configured by `env`
 * over TEST_ENV), ready, every response checked against its schema. With `listen`, each also
 * listens on a free loopback port (for SDK clients and callbacks over real HTTP), `urls`
 * answering their bases (`http://127.0.0.1:<port>`). `close` closes both, drops the database
 * and then fails on any response that did not match.
 */
export async function twoInstances(
  env: Record<string, string>,
  options: { listen: true },
): Promise<TwoInstances & { urls: [string, string] }>;
export async function twoInstances(env?: Record<string, string>): Promise<TwoInstances>;
export async function twoInstances(
  env: Record<string, string> = {},
  options: { listen?: boolean } = {},
): Promise<TwoInstances & { urls?: [string, string] }> {
  const shared = await sharedDatabase();
  const config = loadConfig({ ...TEST_ENV, ...env });
  const apps = [
    await buildApp(config, { db: shared.first, logger: false }),
    await buildApp(config, { db: shared.second, logger: false }),
  ] as const;
  const checks = apps.map((app) => checkResponsesAgainstSchemas(app));
  for (const app of apps) await app.ready();
  const listening = { port: 0, host: '127.0.0.1' };
  return {
    first: apps[0],
    second: apps[1],
    db: shared.first,
    ...(options.listen
      ? { urls: [await apps[0].listen(listening), await apps[1].listen(listening)] as [string, string] }
      : {}),
    close: async () => {
      for (const app of apps) await app.close();
      await shared.drop();
      for (const check of checks) check.assertResponsesMatched();
    },
  };
}

/** A port nothing listens on now, on loopback (for an app, or an emulator's callbacks to it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A database this process and a child instance (`startChild`) both open: the test database on
 * PostgreSQL; on SQLite a file (an in-memory one is one process's alone), unmigrated until an
 * app is built on it here. `drop` closes it and removes the file.
 */
export async function databaseForChild(name: string): Promise<{
  db: Db;
  url: string;
  schema: string | undefined;
  drop: () => Promise<void>;
}> {
  if (process.env.TEST_DATABASE_URL) {
    const { db, drop } = await createTestDatabase();
    return { db, url: testDatabaseUrl(db), schema: db.schema, drop };
  }
  const path = join(tmpdir(), `${name}-${process.pid}-${randomBytes(4).toString('hex')}.db`);
  const url = `sqlite:${path}`;
  const db = createDatabase(url);
  const drop = async () => {
    await db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  };
  return { db, url, schema: undefined, drop };
}

/**
 * Starts the service in a child process on `url` (and `schema`, PostgreSQL) with `env` over
 * the test settings, for crash tests and process-wide probes; answers it and its URL once it serves.
 */
export async function startChild(url: string, schema: string | undefined, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, nodeArgsFor('test/helpers/instance.fixture.ts'), {
    env: {
      ...process.env,
      CHILD_DATABASE_URL: url,
      CHILD_ENV: JSON.stringify(env),
      ...(schema ? { CHILD_DATABASE_SCHEMA: schema } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const served = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.on('exit', (code) => reject(new Error(`the instance exited (${code}) before serving`)));
  });
  return { child, url: served };
}

/** Kills the child with SIGKILL (no shutdown of any kind) and waits for it to be gone. */
export const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.on('exit', () => resolve());
    child.kill('SIGKILL');
  });

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}@example.test`;
}

export interface SignedInUser {
  id: number;
  email: string;
  token: string;
  password: string;
  auth: { authorization: string };
  response: LightMyRequestResponse;
}

export async function registerUser(app: FastifyInstance, name = 'Test User'): Promise<SignedInUser> {
  const email = uniqueEmail();
  const password = 'correct horse battery';
  const response = await client(app, null).send('POST', '/api/auth/register', {
    body: { email, password, name },
  });
  const body = expectStatus(response, 201);
  return {
    id: body.user.id,
    email,
    password,
    token: body.accessToken,
    auth: { authorization: `Bearer ${body.accessToken}` },
    response,
  };
}

/**
 * Verifies `user`'s address through the real route (POST /api/auth/verify-email). The
 * link is issued as registration issues it, by the auth module's own `issueLink`, rather
 * than read back from a mail: most apps under test send no mail (no SMTP_URL), and the
 * mail path has tests of its own (test/modules/auth/email-verification.test.ts).
 */
export async function verifyEmail(app: FastifyInstance, user: { id: number; email: string }): Promise<void> {
  const token = await issueLink(app.db.kysely, {
    userId: user.id,
    purpose: 'verify_email',
    email: user.email,
  });
  expectStatus(await client(app, null).send('POST', '/api/auth/verify-email', { body: { token } }), 200);
}

/** Registers a user whose address is verified (as a person who opened the mailed link). */
export async function registerVerifiedUser(app: FastifyInstance, name = 'Test User'): Promise<SignedInUser> {
  const user = await registerUser(app, name);
  await verifyEmail(app, user);
  return user;
}

/** Reads a Set-Cookie value by name from an inject response. */
export function cookieValue(response: LightMyRequestResponse, name: string): string | undefined {
  return response.cookies.find((cookie) => cookie.name === name)?.value;
}
