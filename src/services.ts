import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { EphemeralStore } from './lib/ephemeral-store.js';
import type { Metrics } from './metrics.js';
import { createAuthService } from './modules/auth/service.js';
import { createPlatformService } from './modules/platform/service.js';

export interface ServiceDeps {
  db: Db;
  config: Config;
  store: EphemeralStore;
  metrics: Metrics;
}

/** Every domain service, built once per app; HTTP routes and MCP tools both call these. */
export function createServices(deps: ServiceDeps) {
  return {
    auth: createAuthService(deps),
    platform: createPlatformService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
