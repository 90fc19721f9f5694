import { loadConfig } from '../../src/config.js';
import { type StartedEmulator, startDevelopmentProviders } from '../emulators/development.js';

export interface SharedProviders {
  /** The provider settings every instance is given: the emulators' addresses and keys. */
  env: Record<string, string>;
  emulators: StartedEmulator[];
}

/**
 * In development, each provider the environment leaves unset runs once, here, as its
 * bundled emulator, and every instance is pointed at it (instances starting emulators of
 * their own would each keep a different mailbox, payment ledger and calendars). Elsewhere,
 * or with settings, nothing starts.
 */
export async function startSharedProviders(
  env: Record<string, string | undefined>,
): Promise<SharedProviders> {
  const { config, emulators } = await startDevelopmentProviders(loadConfig(env));
  const provided: Record<string, string | undefined> = {
    PAYMENT_API_BASE: config.payment.apiBase,
    PAYMENT_SECRET_KEY: config.payment.secretKey,
    SMTP_URL: config.mail.smtpUrl,
  };
  for (const [letter, settings] of [
    ['A', config.calendarSync.providerA],
    ['B', config.calendarSync.providerB],
  ] as const) {
    if (!settings) continue;
    const prefix = `CALENDAR_PROVIDER_${letter}`;
    provided[`${prefix}_CLIENT_ID`] = settings.clientId;
    provided[`${prefix}_CLIENT_SECRET`] = settings.clientSecret;
    provided[`${prefix}_AUTH_URL`] = settings.authUrl;
    provided[`${prefix}_TOKEN_URL`] = settings.tokenUrl;
    provided[`${prefix}_API_BASE`] = settings.apiBase;
    if (settings.revokeUrl) provided[`${prefix}_REVOKE_URL`] = settings.revokeUrl;
  }
  const set = Object.entries(provided).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return { env: Object.fromEntries(set), emulators };
}
