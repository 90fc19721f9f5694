import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, type Db } from '../../src/db/database.js';
import { issueLink } from '../../src/modules/auth/links.js';
import { checkResponsesAgainstSchemas } from './response-schemas.js';

/**
 * A fresh, migrated database for one app: in-memory SQLite by default, or a
 * schema of its own inside TEST_DATABASE_URL (the PostgreSQL run).
 */
export async function createTestDatabase(): Promise<{ db: Db; drop: () => Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const db = createDatabase('sqlite::memory:');
    return { db, drop: () => db.close() };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const db = createDatabase(url, { searchPath: schema, poolSize: 20 });
  return {
    db,
    drop: async () => {
      await db.close();
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`drop schema ${schema} cascade`);
      await cleanup.end();
    },
  };
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

export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const { db, drop } = await createTestDatabase();
  const config = loadConfig({ ...TEST_ENV, ...env });
  const app = await buildApp(config, { db, logger: false });
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
  const response = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email, password, name },
  });
  if (response.statusCode !== 201)
    throw new Error(`register failed: ${response.statusCode} ${response.body}`);
  const body = response.json();
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
  const response = await app.inject({ method: 'POST', url: '/api/auth/verify-email', payload: { token } });
  if (response.statusCode !== 200)
    throw new Error(`verify-email failed: ${response.statusCode} ${response.body}`);
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
