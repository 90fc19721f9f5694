import { z } from 'zod';

// Development-only secrets: fine on a laptop, refused under NODE_ENV=production.
const DEV_JWT_SECRET = 'dev-only-login-jwt-secret-change-me-0123456789';
const DEV_OAUTH_JWT_SECRET = 'dev-only-oauth-jwt-secret-change-me-0123456789';
const DEV_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
const DEV_PAYMENT_WEBHOOK_SECRET = 'dev-only-payment-webhook-secret-change-me';

const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const absoluteUrl = z.url({ protocol: /^https?$/ }).transform((value) => value.replace(/\/+$/, ''));

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

/** `a@b.example` or `Display Name <a@b.example>` on one line (a name with a comma is quoted). */
const mailbox = z.string().transform((text, ctx) => {
  const match = /^\s*(?:("[^"\r\n]*"|[^<>"\r\n,;]*?)\s*<([^<>\s]+)>|([^<>\s]+))\s*$/.exec(text);
  const address = match?.[2] ?? match?.[3];
  if (!address || !z.email().safeParse(address).success) {
    ctx.addIssue({ code: 'custom', message: 'not a mailbox' });
    return z.NEVER;
  }
  return text.trim();
});

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/|sqlite:)/, 'must start with postgres://, postgresql:// or sqlite:')
    .default('sqlite:./data/reservations.db'),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  PUBLIC_URL: absoluteUrl.optional(),
  FRONTEND_URL: absoluteUrl.optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').default(DEV_JWT_SECRET),
  OAUTH_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').default(DEV_OAUTH_JWT_SECRET),
  OAUTH_ACCESS_TOKEN_TTL: seconds(3600),
  OAUTH_REFRESH_TOKEN_TTL: seconds(7_776_000),
  OAUTH_CIMD_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false'),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false'),
  /** How long a webhook attempt waits for an answer (DECISIONS.md: 10 s; tests lower it). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(10_000).default(10_000),
  /** How long an agent's tool calls are kept in its activity (DECISIONS.md: default 90). */
  AGENT_ACTIVITY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  OUTBOX_POLL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(100)
    .describe(
      'How often each instance looks for new events to deliver (webhooks, mail); 0: only every minute',
    ),
  LOGIN_REFRESH_TOKEN_TTL: seconds(2_592_000),
  ENCRYPTION_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
    .default(DEV_ENCRYPTION_KEY),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  CORS_ORIGINS: z.string().optional(),
  JOB_QUEUE: z
    .enum(['auto', 'in-process'])
    .default('auto')
    .describe('auto: pg-boss on PostgreSQL, in-process on SQLite; in-process: always in this process'),
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
  RATE_LIMIT_MAX: z.coerce.number().int().positive().default(1000),
  LOGIN_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(20),
  PUBLIC_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(120),
  REGISTRATION_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(20),
  REGISTER_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(10),
  TWO_FACTOR_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(30),
  PUBLIC_HOLD_IP_MAX: z.coerce.number().int().positive().default(3),
  HONEYPOT_BLOCK_SECONDS: seconds(900),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
  INGEST_MAX_ROWS: z.coerce.number().int().positive().default(10_000),
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  PAYMENT_API_BASE: absoluteUrl.optional(),
  PAYMENT_SECRET_KEY: z.string().min(1).optional(),
  PAYMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  PAYMENT_WEBHOOK_SECRET: z
    .string()
    .min(16, 'must be at least 16 characters')
    .default(DEV_PAYMENT_WEBHOOK_SECRET),
  // External calendar providers: Google Calendar v3 style (A) and Microsoft Graph style (B).
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
  SMTP_URL: z
    .url({ protocol: /^smtps?$/, message: 'must be an smtp:// or smtps:// URL' })
    .optional()
    .describe('Unset: no mail (development starts the bundled mail catcher instead)'),
  MAIL_FROM: z
    .string()
    .max(320)
    .refine(
      (text) => mailbox.safeParse(text).success,
      'must be an email address, or a display name and an address: Shop <no-reply@shop.example>',
    )
    .optional(),
});

export type Env = z.input<typeof envSchema>;

export interface Config {
  env: 'development' | 'test' | 'production';
  port: number;
  host: string;
  databaseUrl: string;
  /** PostgreSQL: how long a query waits for a connection before it fails (503). */
  databaseConnectTimeoutMs: number;
  /** PostgreSQL: the statement timeout (0: none); a connection silent a second longer is closed. */
  databaseStatementTimeoutMs: number;
  publicUrl: string;
  frontendUrl: string;
  jwtSecret: string;
  oauthJwtSecret: string;
  oauthAccessTokenTtl: number;
  oauthRefreshTokenTtl: number;
  /**
   * Tests only: Client ID Metadata Documents may live on loopback or private addresses,
   * and `http://localhost` / `http://127.0.0.1` client ids count as such documents.
   */
  oauthCimdAllowPrivate: boolean;
  /** Development and tests only: webhook endpoints may be `http://` and on loopback or private addresses. */
  webhookAllowPrivate: boolean;
  /** Milliseconds a webhook attempt waits for a 2xx before it counts as failed (at most 10 s). */
  webhookTimeoutMs: number;
  /** Milliseconds between an instance's looks for new outbox events; 0: none (the minute jobs only). */
  outboxPollMs: number;
  /** Days an agent's tool calls stay in its activity. */
  agentActivityRetentionDays: number;
  loginRefreshTokenTtl: number;
  encryptionKey: Buffer;
  redisUrl: string | undefined;
  /** Where background jobs run: `auto` puts them in pg-boss on PostgreSQL. */
  jobQueue: 'auto' | 'in-process';
  corsOrigins: string[];
  /** Origins besides PUBLIC_URL and FRONTEND_URL that may call /api/mcp from a browser. */
  mcpAllowedOrigins: string[];
  featureFlags: Record<string, boolean>;
  logLevel: string;
  rateLimitMax: number;
  publicRateLimitMax: number;
  /** OAuth client registrations per IP per hour. */
  registrationRateLimitMax: number;
  /** Account registrations (POST /api/auth/register) per IP per hour. */
  registerRateLimitMax: number;
  /** Second login steps (POST /api/auth/login/2fa) per IP per quarter hour, beside the login limiter. */
  twoFactorRateLimitMax: number;
  /** Live public holds per IP in an organisation (customers behind one address share it). */
  publicHoldIpMax: number;
  loginRateLimitMax: number;
  honeypotBlockSeconds: number;
  bodyLimitBytes: number;
  ingestMaxRows: number;
  trustProxy: boolean;
  payment: {
    apiBase: string | undefined;
    secretKey: string | undefined;
    timeoutMs: number;
    /** Key of the provider's webhook signatures (`Payment-Signature`). */
    webhookSecret: string;
  };
  calendarSync: CalendarSyncConfig;
  mail: MailConfig;
}

export interface MailConfig {
  /** Unset: mail is off (development starts the bundled mail catcher instead; production warns). */
  smtpUrl: string | undefined;
  /** The From of every mail: `no-reply@<PUBLIC_URL host>` unless MAIL_FROM says otherwise. */
  from: string;
}

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

type ParsedEnv = z.output<typeof envSchema>;

/** The five CALENDAR_PROVIDER_<X>_* settings come together or not at all. */
function calendarProvider(e: ParsedEnv, letter: 'A' | 'B'): CalendarProviderSettings | undefined {
  const names = ['CLIENT_ID', 'CLIENT_SECRET', 'AUTH_URL', 'TOKEN_URL', 'API_BASE'] as const;
  const values = names.map((name) => e[`CALENDAR_PROVIDER_${letter}_${name}`]);
  if (values.every((value) => value === undefined)) return undefined;
  const missing = names.find((_, index) => values[index] === undefined);
  if (missing)
    throw new ConfigError(
      `Invalid environment variable CALENDAR_PROVIDER_${letter}_${missing}: the CALENDAR_PROVIDER_${letter}_* settings are set together`,
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

export class ConfigError extends Error {}

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

/** Reads and validates the environment; the message names the first bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(
    Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== '')),
  );
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid environment variable ${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production') {
    const defaults: Array<[string, boolean]> = [
      ['JWT_SECRET', e.JWT_SECRET === DEV_JWT_SECRET],
      ['OAUTH_JWT_SECRET', e.OAUTH_JWT_SECRET === DEV_OAUTH_JWT_SECRET],
      ['ENCRYPTION_KEY', e.ENCRYPTION_KEY === DEV_ENCRYPTION_KEY],
    ];
    const unset = defaults.find(([, isDefault]) => isDefault);
    if (unset) throw new ConfigError(`Invalid environment variable ${unset[0]}: must be set in production`);
    if (e.OAUTH_CIMD_ALLOW_PRIVATE === 'true') {
      throw new ConfigError(
        'Invalid environment variable OAUTH_CIMD_ALLOW_PRIVATE: must not be true in production',
      );
    }
    if (e.WEBHOOK_ALLOW_PRIVATE === 'true') {
      throw new ConfigError(
        'Invalid environment variable WEBHOOK_ALLOW_PRIVATE: must not be true in production',
      );
    }
    if (!e.PAYMENT_API_BASE || !e.PAYMENT_SECRET_KEY) {
      throw new ConfigError(
        'Invalid environment variable PAYMENT_API_BASE: PAYMENT_API_BASE and PAYMENT_SECRET_KEY must be set in production',
      );
    }
    if (e.PAYMENT_WEBHOOK_SECRET === DEV_PAYMENT_WEBHOOK_SECRET) {
      throw new ConfigError('Invalid environment variable PAYMENT_WEBHOOK_SECRET: must be set in production');
    }
  }
  if (Boolean(e.PAYMENT_API_BASE) !== Boolean(e.PAYMENT_SECRET_KEY)) {
    const missing = e.PAYMENT_API_BASE ? 'PAYMENT_SECRET_KEY' : 'PAYMENT_API_BASE';
    throw new ConfigError(
      `Invalid environment variable ${missing}: PAYMENT_API_BASE and PAYMENT_SECRET_KEY are set together`,
    );
  }
  if (e.JWT_SECRET === e.OAUTH_JWT_SECRET) {
    throw new ConfigError('Invalid environment variable OAUTH_JWT_SECRET: must differ from JWT_SECRET');
  }
  const publicUrl = e.PUBLIC_URL ?? `http://localhost:${e.PORT}`;
  const frontendUrl = e.FRONTEND_URL ?? publicUrl;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    publicUrl,
    frontendUrl,
    jwtSecret: e.JWT_SECRET,
    oauthJwtSecret: e.OAUTH_JWT_SECRET,
    oauthAccessTokenTtl: e.OAUTH_ACCESS_TOKEN_TTL,
    oauthRefreshTokenTtl: e.OAUTH_REFRESH_TOKEN_TTL,
    oauthCimdAllowPrivate: e.OAUTH_CIMD_ALLOW_PRIVATE === 'true',
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE === 'true',
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    outboxPollMs: e.OUTBOX_POLL_MS,
    agentActivityRetentionDays: e.AGENT_ACTIVITY_RETENTION_DAYS,
    loginRefreshTokenTtl: e.LOGIN_REFRESH_TOKEN_TTL,
    encryptionKey: Buffer.from(e.ENCRYPTION_KEY, 'base64'),
    redisUrl: e.REDIS_URL,
    jobQueue: e.JOB_QUEUE,
    corsOrigins: (e.CORS_ORIGINS ?? frontendUrl)
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    mcpAllowedOrigins: (e.MCP_ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim().replace(/\/+$/, ''))
      .filter(Boolean),
    featureFlags: e.FEATURE_FLAGS ?? {},
    logLevel: e.LOG_LEVEL,
    rateLimitMax: e.RATE_LIMIT_MAX,
    loginRateLimitMax: e.LOGIN_RATE_LIMIT_MAX,
    publicRateLimitMax: e.PUBLIC_RATE_LIMIT_MAX,
    registrationRateLimitMax: e.REGISTRATION_RATE_LIMIT_MAX,
    registerRateLimitMax: e.REGISTER_RATE_LIMIT_MAX,
    twoFactorRateLimitMax: e.TWO_FACTOR_RATE_LIMIT_MAX,
    publicHoldIpMax: e.PUBLIC_HOLD_IP_MAX,
    honeypotBlockSeconds: e.HONEYPOT_BLOCK_SECONDS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    ingestMaxRows: e.INGEST_MAX_ROWS,
    trustProxy: e.TRUST_PROXY === 'true',
    payment: {
      apiBase: e.PAYMENT_API_BASE,
      secretKey: e.PAYMENT_SECRET_KEY,
      timeoutMs: e.PAYMENT_TIMEOUT_MS,
      webhookSecret: e.PAYMENT_WEBHOOK_SECRET,
    },
    calendarSync: {
      providerA: calendarProvider(e, 'A'),
      providerB: calendarProvider(e, 'B'),
      timeoutMs: e.CALENDAR_SYNC_TIMEOUT_MS,
      pollMinutes: e.CALENDAR_SYNC_POLL_MINUTES,
      retryDelaySeconds: e.CALENDAR_SYNC_RETRY_SECONDS,
    },
    mail: {
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM?.trim() ?? `no-reply@${new URL(publicUrl).hostname}`,
    },
  };
}
