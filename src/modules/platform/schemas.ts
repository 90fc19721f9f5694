import { z } from 'zod';

export const frontendErrorReport = z.strictObject({
  source: z.string().min(1).max(180),
  message: z.string().min(1).max(400),
  stack: z.string().max(10_000).optional(),
  url: z.string().max(400).optional(),
  severity: z.enum(['error', 'warn', 'info']).optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type FrontendErrorReport = z.infer<typeof frontendErrorReport>;

/**
 * Browsers write these bodies, not our clients, so unknown fields are kept rather
 * than refused: `{"csp-report": {...}}`, `{"report": {...}}`, `{"cspReport": {...}}`,
 * a bare report object, or a Reporting API array of `{type, url, body, ...}`.
 */
const reportObject = z.record(z.string(), z.unknown());
export const securityReport = z.union([reportObject, z.array(reportObject).min(1).max(100)]);
export type SecurityReport = z.infer<typeof securityReport>;

export const featureFlags = z.object({
  flags: z.record(z.string(), z.boolean()),
  generatedAt: z.string(),
});

export const health = z.object({ status: z.literal('ok'), uptimeSeconds: z.number() });
export const readiness = z.object({ status: z.literal('ready'), database: z.literal('ok') });
export const root = z.object({
  name: z.string(),
  version: z.string(),
  docs: z.string(),
  openapi: z.string(),
  health: z.string(),
});
