import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { createDatabase, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { createJobQueue, type JobQueue } from './jobs/queue.js';
import { createEphemeralStore, type EphemeralStore } from './lib/ephemeral-store.js';
import type { Metrics } from './metrics.js';
import { moduleMigrations } from './module.js';
import { MODULES } from './modules/index.js';
import { createServices, type Services } from './services.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    store: EphemeralStore;
    metrics: Metrics;
    services: Services;
    jobs: JobQueue;
  }
}

/**
 * Opens (or takes) the database and migrates it, then decorates the app with its config, db,
 * ephemeral store, metrics, job queue and services; the jobs start once the app is ready and
 * everything opened here is closed with it.
 */
export async function attachRuntime(
  app: FastifyInstance,
  config: Config,
  metrics: Metrics,
  /** An open database the caller keeps (and closes) itself. */
  givenDb: Db | undefined,
): Promise<void> {
  const db =
    givenDb ??
    createDatabase(config.databaseUrl, {
      connectTimeoutMs: config.databaseConnectTimeoutMs,
      statementTimeoutMs: config.databaseStatementTimeoutMs,
      ...(config.databaseReadUrl ? { readUrl: config.databaseReadUrl } : {}),
    });
  await migrateToLatest(db, moduleMigrations(MODULES));
  const store = createEphemeralStore(config.redisUrl);
  app.decorate('config', config);
  app.decorate('db', db);
  app.decorate('store', store);
  app.decorate('metrics', metrics);
  const jobs = createJobQueue(db, config.jobQueue, app.log);
  app.decorate('jobs', jobs);
  app.decorate('services', createServices({ db, config, store, metrics, jobs, log: app.log }));
  // Handlers are registered by the services above; workers start once the app is ready.
  app.addHook('onReady', () => jobs.start());
  app.addHook('onClose', async () => {
    await jobs.stop();
    // A service holding resources of its own (the mail sender's thread and its SMTP
    // connection) lets them go once no job can use them.
    for (const service of Object.values(app.services) as Array<{ close?: () => Promise<void> }>) {
      await service.close?.();
    }
    await store.close();
    if (!givenDb) await db.close();
  });
}
