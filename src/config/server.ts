import { z } from 'zod';
import { absoluteUrl } from './fields.js';

const booleanFlags = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.string(), z.boolean()));

/** Where the service listens, the addresses it is reached at, and who may call it from a browser. */
export const serverEnv = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_URL: absoluteUrl.optional(),
  FRONTEND_URL: absoluteUrl.optional(),
  CORS_ORIGINS: z.string().optional(),
  MCP_ALLOWED_ORIGINS: z
    .string()
    .refine(
      (text) =>
        text.split(',').every((entry) => !entry.trim() || absoluteUrl.safeParse(entry.trim()).success),
      'must be a comma-separated list of http(s) origins',
    )
    .optional(),
  FEATURE_FLAGS: booleanFlags.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(60_000).default(0),
});

export interface ServerConfig {
  env: 'development' | 'test' | 'production';
  port: number;
  host: string;
  publicUrl: string;
  frontendUrl: string;
  corsOrigins: string[];
  /** Origins besides PUBLIC_URL and FRONTEND_URL that may call /api/mcp from a browser. */
  mcpAllowedOrigins: string[];
  featureFlags: Record<string, boolean>;
  logLevel: string;
  trustProxy: boolean;
  /**
   * Milliseconds between SIGTERM and closing: the instance serves on while its readiness says
   * 503, long enough for a load balancer's health checks to take it out of rotation.
   */
  shutdownDrainMs: number;
}

const listOf = (text: string, clean: (entry: string) => string) => text.split(',').map(clean).filter(Boolean);

export function serverConfig(e: z.output<typeof serverEnv>): ServerConfig {
  const publicUrl = e.PUBLIC_URL ?? `http://localhost:${e.PORT}`;
  const frontendUrl = e.FRONTEND_URL ?? publicUrl;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    frontendUrl,
    corsOrigins: listOf(e.CORS_ORIGINS ?? frontendUrl, (origin) => origin.trim()),
    mcpAllowedOrigins: listOf(e.MCP_ALLOWED_ORIGINS ?? '', (origin) => origin.trim().replace(/\/+$/, '')),
    featureFlags: e.FEATURE_FLAGS ?? {},
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY === 'true',
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
  };
}
