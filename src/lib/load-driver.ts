import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Loads a CommonJS driver package the first time a deployment needs it. PostgreSQL,
 * its job queue and Redis are several megabytes of resident code each; a SQLite
 * instance without Redis never loads them.
 */
export function loadDriver<Module>(name: 'pg' | 'pg-boss' | 'pg-boss/src/plans.js' | 'ioredis'): Module {
  return require(name) as Module;
}
