import { z } from 'zod';
import {
  type AuthConfig,
  assertAuthForProduction,
  assertAuthSecretsDiffer,
  authConfig,
  authEnv,
} from './config/auth.js';
import {
  assertBackgroundForProduction,
  type BackgroundConfig,
  backgroundConfig,
  backgroundEnv,
} from './config/background.js';
import { type CalendarSyncConfig, calendarSyncConfig, calendarSyncEnv } from './config/calendar-sync.js';
import { ConfigError, invalidVariable } from './config/fields.js';
import { type LimitsConfig, limitsConfig, limitsEnv } from './config/limits.js';
import { type MailConfig, mailConfig, mailEnv } from './config/mail.js';
import {
  assertPaymentForProduction,
  assertPaymentPair,
  type PaymentConfig,
  paymentConfig,
  paymentEnv,
} from './config/payment.js';
import { type ServerConfig, serverConfig, serverEnv } from './config/server.js';
import {
  assertReadReplicaOfPostgres,
  type StorageConfig,
  storageConfig,
  storageEnv,
} from './config/storage.js';
import { type TelemetryConfig, telemetryConfig, telemetryEnv } from './config/telemetry.js';

export type { CalendarProviderSettings, CalendarSyncConfig } from './config/calendar-sync.js';
export { ConfigError } from './config/fields.js';
export type { MailConfig } from './config/mail.js';
export type { TracingConfig } from './config/telemetry.js';

/** Every variable the service reads, area by area (src/config/). */
const envSchema = z.object({
  ...serverEnv.shape,
  ...storageEnv.shape,
  ...authEnv.shape,
  ...backgroundEnv.shape,
  ...limitsEnv.shape,
  ...paymentEnv.shape,
  ...calendarSyncEnv.shape,
  ...mailEnv.shape,
  ...telemetryEnv.shape,
});

export type Env = z.input<typeof envSchema>;

export interface Config
  extends ServerConfig,
    StorageConfig,
    AuthConfig,
    BackgroundConfig,
    LimitsConfig,
    TelemetryConfig {
  payment: PaymentConfig;
  calendarSync: CalendarSyncConfig;
  mail: MailConfig;
}

type ParsedEnv = z.output<typeof envSchema>;

/** For entry points: the configuration, or one line naming the bad variable and exit code 1. */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

/** The rules across variables: production's, then those of every environment. */
function assertConsistent(e: ParsedEnv): void {
  if (e.NODE_ENV === 'production') {
    assertAuthForProduction(e);
    assertBackgroundForProduction(e);
    assertPaymentForProduction(e);
  }
  assertPaymentPair(e);
  assertAuthSecretsDiffer(e);
  assertReadReplicaOfPostgres(e);
}

/** Reads and validates the environment; the message names the first bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(
    Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== '')),
  );
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidVariable(String(issue.path[0]), issue.message);
  }
  const e = parsed.data;
  assertConsistent(e);
  const server = serverConfig(e);
  return {
    ...server,
    ...storageConfig(e),
    ...authConfig(e),
    ...backgroundConfig(e),
    ...limitsConfig(e),
    ...telemetryConfig(e),
    payment: paymentConfig(e),
    calendarSync: calendarSyncConfig(e),
    mail: mailConfig(e, server.publicUrl),
  };
}
