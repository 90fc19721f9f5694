import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { EphemeralStore } from '../../lib/ephemeral-store.js';
import { DomainError } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { Metrics } from '../../metrics.js';
import { createPlatformRepo } from './repo.js';
import type { FrontendErrorReport, SecurityReport } from './schemas.js';

/** Flags every deployment has; FEATURE_FLAGS overrides or adds to them. */
export const DEFAULT_FEATURE_FLAGS: Record<string, boolean> = {
  publicBooking: true,
  mcp: true,
  oauth: true,
  calendarSync: true,
};

export interface ClientInfo {
  ip: string;
  userAgent: string | null;
}

const blockKey = (ip: string) => `honeypot:block:${ip}`;

export type PlatformService = ReturnType<typeof createPlatformService>;

export function createPlatformService(deps: {
  db: Db;
  config: Config;
  store: EphemeralStore;
  metrics: Metrics;
}) {
  const { config, store, metrics } = deps;
  const repo = createPlatformRepo(deps.db.kysely, config.ingestMaxRows);
  const flags = { ...DEFAULT_FEATURE_FLAGS, ...config.featureFlags };

  return {
    async checkReady(): Promise<void> {
      try {
        await repo.ping();
      } catch {
        throw new DomainError('NOT_READY', 'Database is not reachable');
      }
    },

    featureFlags() {
      return { flags, generatedAt: nowIso() };
    },

    async recordFrontendError(report: FrontendErrorReport, client: ClientInfo) {
      const severity = report.severity ?? 'error';
      await repo.insertFrontendError({
        source: report.source,
        message: report.message,
        stack: report.stack ?? null,
        url: report.url ?? null,
        severity,
        details: report.details ? JSON.stringify(report.details) : null,
        ip: client.ip,
        userAgent: client.userAgent,
        createdAt: nowIso(),
      });
      metrics.frontendErrors.inc({ severity });
    },

    async recordSecurityReports(kind: 'ct' | 'csp', report: SecurityReport, client: ClientInfo) {
      const reports = Array.isArray(report) ? report : [report];
      const createdAt = nowIso();
      await repo.insertSecurityReports(
        reports.map((body) => ({
          kind,
          body: JSON.stringify(body),
          ip: client.ip,
          userAgent: client.userAgent,
          createdAt,
        })),
      );
      metrics.securityReports.inc({ kind }, reports.length);
    },

    /**
     * Records a trap hit. Only `block` (a credential typed into the trap) keeps that IP away
     * from the login routes for HONEYPOT_BLOCK_SECONDS: any page on the web can make a
     * visitor's browser fetch the trap, and one office shares one IP.
     */
    async recordHoneypotHit(path: string, client: ClientInfo, outcome: { block: boolean }) {
      await repo.insertHoneypotHit({ ip: client.ip, userAgent: client.userAgent, path, createdAt: nowIso() });
      if (outcome.block) await store.mark(blockKey(client.ip), config.honeypotBlockSeconds);
      metrics.honeypotHits.inc({ path });
    },

    async assertNotBlocked(ip: string) {
      if (await store.isMarked(blockKey(ip))) {
        throw new DomainError('BLOCKED', 'Access from this address is temporarily blocked');
      }
    },
  };
}
