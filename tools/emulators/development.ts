import type { CalendarProviderSettings, Config } from '../../src/config.js';
import { startCalendarProviderAEmulator } from './calendar-provider-a/server.js';
import { startCalendarProviderBEmulator } from './calendar-provider-b/server.js';
import { startMailCatcher } from './mail/server.js';
import { startPaymentEmulator } from './payment/server.js';

/** The secret the payment emulator is started with; it guards nothing real. */
export const EMULATOR_SECRET_KEY = 'sk_test_payment_emulator';

export interface StartedEmulator {
  /** What it stands in for, for the start-up log. */
  provider: string;
  url: string;
  close(): Promise<void>;
}

export interface DevelopmentProviders {
  /** `config`, pointed at the emulators that were started. */
  config: Config;
  emulators: StartedEmulator[];
}

/**
 * In development without PAYMENT_API_BASE, the bundled payment emulator on a
 * free loopback port, and the config pointed at it. It signs its webhooks to
 * this service with PAYMENT_WEBHOOK_SECRET, as the real provider would.
 * Production never gets here without a real provider (config refuses); tests
 * start their own.
 */
export async function startDevelopmentPayments(config: Config): Promise<DevelopmentProviders> {
  if (config.env !== 'development' || config.payment.apiBase) return { config, emulators: [] };
  const emulator = await startPaymentEmulator({
    secretKey: EMULATOR_SECRET_KEY,
    webhookUrl: `${config.publicUrl}/api/payments/webhooks`,
    webhookSecret: config.payment.webhookSecret,
  });
  return {
    config: {
      ...config,
      payment: { ...config.payment, apiBase: emulator.url, secretKey: EMULATOR_SECRET_KEY },
    },
    emulators: [{ provider: 'payment', url: emulator.url, close: () => emulator.close() }],
  };
}

function settingsFrom(
  env: Record<string, string>,
  prefix: string,
  revokeUrl?: string,
): CalendarProviderSettings {
  return {
    clientId: env[`${prefix}_CLIENT_ID`]!,
    clientSecret: env[`${prefix}_CLIENT_SECRET`]!,
    authUrl: env[`${prefix}_AUTH_URL`]!,
    tokenUrl: env[`${prefix}_TOKEN_URL`]!,
    apiBase: env[`${prefix}_API_BASE`]!,
    revokeUrl,
  };
}

/** In development, each calendar provider without CALENDAR_PROVIDER_<X>_* settings runs as its emulator. */
export async function startDevelopmentCalendarProviders(config: Config): Promise<DevelopmentProviders> {
  if (config.env !== 'development') return { config, emulators: [] };
  const emulators: StartedEmulator[] = [];
  let { providerA, providerB } = config.calendarSync;
  if (!providerA) {
    const emulator = await startCalendarProviderAEmulator();
    providerA = settingsFrom(emulator.env('CALENDAR_PROVIDER_A'), 'CALENDAR_PROVIDER_A', emulator.revokeUrl);
    emulators.push({ provider: 'calendar_provider_a', url: emulator.url, close: () => emulator.close() });
  }
  if (!providerB) {
    const emulator = await startCalendarProviderBEmulator();
    providerB = settingsFrom(emulator.env('CALENDAR_PROVIDER_B'), 'CALENDAR_PROVIDER_B');
    emulators.push({ provider: 'calendar_provider_b', url: emulator.url, close: () => emulator.close() });
  }
  return { config: { ...config, calendarSync: { ...config.calendarSync, providerA, providerB } }, emulators };
}

/**
 * In development without SMTP_URL, the bundled mail catcher on loopback, and the config
 * pointed at it: what the service sends is listed at `<url>/__admin/messages`.
 */
export async function startDevelopmentMail(config: Config): Promise<DevelopmentProviders> {
  if (config.env !== 'development' || config.mail.smtpUrl) return { config, emulators: [] };
  const catcher = await startMailCatcher();
  return {
    config: { ...config, mail: { ...config.mail, smtpUrl: catcher.smtpUrl } },
    emulators: [{ provider: 'mail', url: `${catcher.url}/__admin/messages`, close: () => catcher.close() }],
  };
}

/** Every provider the development config leaves unset, as its bundled emulator. */
export async function startDevelopmentProviders(config: Config): Promise<DevelopmentProviders> {
  const payments = await startDevelopmentPayments(config);
  const calendars = await startDevelopmentCalendarProviders(payments.config);
  const mail = await startDevelopmentMail(calendars.config);
  return {
    config: mail.config,
    emulators: [...payments.emulators, ...calendars.emulators, ...mail.emulators],
  };
}
