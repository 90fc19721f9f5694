import { z } from 'zod';
import { absoluteUrl, invalidVariable } from './fields.js';

/** External calendar providers: Google Calendar v3 style (A) and Microsoft Graph style (B). */
export const calendarSyncEnv = z.object({
  CALENDAR_PROVIDER_A_CLIENT_ID: z.string().min(1).optional(),
  CALENDAR_PROVIDER_A_CLIENT_SECRET: z.string().min(1).optional(),
  CALENDAR_PROVIDER_A_AUTH_URL: absoluteUrl.optional(),
  CALENDAR_PROVIDER_A_TOKEN_URL: absoluteUrl.optional(),
  CALENDAR_PROVIDER_A_API_BASE: absoluteUrl.optional(),
  CALENDAR_PROVIDER_A_REVOKE_URL: absoluteUrl.optional(),
  CALENDAR_PROVIDER_B_CLIENT_ID: z.string().min(1).optional(),
  CALENDAR_PROVIDER_B_CLIENT_SECRET: z.string().min(1).optional(),
  CALENDAR_PROVIDER_B_AUTH_URL: absoluteUrl.optional(),
  CALENDAR_PROVIDER_B_TOKEN_URL: absoluteUrl.optional(),
  CALENDAR_PROVIDER_B_API_BASE: absoluteUrl.optional(),
  CALENDAR_SYNC_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  CALENDAR_SYNC_POLL_MINUTES: z.coerce.number().int().min(1).max(1440).default(15),
  CALENDAR_SYNC_RETRY_SECONDS: z.coerce.number().positive().max(3600).default(10),
});

type CalendarSyncEnv = z.output<typeof calendarSyncEnv>;

/** One external calendar provider's OAuth client and endpoints. */
export interface CalendarProviderSettings {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  apiBase: string;
  /** Token revocation endpoint, for providers that offer one (A). */
  revokeUrl: string | undefined;
}

export interface CalendarSyncConfig {
  /** Unset: that provider is not available (development starts the bundled emulators instead). */
  providerA: CalendarProviderSettings | undefined;
  providerB: CalendarProviderSettings | undefined;
  /** Bound on one provider call in milliseconds. */
  timeoutMs: number;
  /** Polling interval for calendars without a live push channel. */
  pollMinutes: number;
  /** First retry delay of a failed sync job; doubled per attempt. */
  retryDelaySeconds: number;
}

/** The five CALENDAR_PROVIDER_<X>_* settings come together or not at all. */
function calendarProvider(e: CalendarSyncEnv, letter: 'A' | 'B'): CalendarProviderSettings | undefined {
  const names = ['CLIENT_ID', 'CLIENT_SECRET', 'AUTH_URL', 'TOKEN_URL', 'API_BASE'] as const;
  const values = names.map((name) => e[`CALENDAR_PROVIDER_${letter}_${name}`]);
  if (values.every((value) => value === undefined)) return undefined;
  const missing = names.find((_, index) => values[index] === undefined);
  if (missing)
    throw invalidVariable(
      `CALENDAR_PROVIDER_${letter}_${missing}`,
      `the CALENDAR_PROVIDER_${letter}_* settings are set together`,
    );
  const [clientId, clientSecret, authUrl, tokenUrl, apiBase] = values as string[];
  // Google's revocation endpoint sits next to its token endpoint (…/token -> …/revoke).
  const revokeUrl =
    letter === 'A'
      ? (e.CALENDAR_PROVIDER_A_REVOKE_URL ?? tokenUrl!.replace(/\/token$/, '/revoke'))
      : undefined;
  return {
    clientId: clientId!,
    clientSecret: clientSecret!,
    authUrl: authUrl!,
    tokenUrl: tokenUrl!,
    apiBase: apiBase!,
    revokeUrl,
  };
}

export function calendarSyncConfig(e: CalendarSyncEnv): CalendarSyncConfig {
  return {
    providerA: calendarProvider(e, 'A'),
    providerB: calendarProvider(e, 'B'),
    timeoutMs: e.CALENDAR_SYNC_TIMEOUT_MS,
    pollMinutes: e.CALENDAR_SYNC_POLL_MINUTES,
    retryDelaySeconds: e.CALENDAR_SYNC_RETRY_SECONDS,
  };
}
