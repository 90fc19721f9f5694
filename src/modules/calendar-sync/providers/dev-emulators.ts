import type { CalendarProviderSettings, Config } from '../../../config.js';

export interface DevelopmentCalendarProviders {
  /** `config`, pointed at the emulators that were started. */
  config: Config;
  /** The started emulators, to log and to close with the app. */
  emulators: Array<{ provider: string; url: string; close(): Promise<void> }>;
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

/**
 * In development, each calendar provider without CALENDAR_PROVIDER_<X>_* settings runs as
 * the bundled emulator (tools/emulators/calendar-provider-a|b) on a free loopback port, and
 * the config points at it. Production and tests never get here: tests start their own.
 */
export async function startDevelopmentCalendarProviders(
  config: Config,
): Promise<DevelopmentCalendarProviders> {
  if (config.env !== 'development') return { config, emulators: [] };
  const emulators: DevelopmentCalendarProviders['emulators'] = [];
  let { providerA, providerB } = config.calendarSync;
  if (!providerA) {
    const { startCalendarProviderAEmulator } = await import(
      '../../../../tools/emulators/calendar-provider-a/server.js'
    );
    const emulator = await startCalendarProviderAEmulator();
    providerA = settingsFrom(emulator.env('CALENDAR_PROVIDER_A'), 'CALENDAR_PROVIDER_A', emulator.revokeUrl);
    emulators.push({ provider: 'calendar_provider_a', url: emulator.url, close: () => emulator.close() });
  }
  if (!providerB) {
    const { startCalendarProviderBEmulator } = await import(
      '../../../../tools/emulators/calendar-provider-b/server.js'
    );
    const emulator = await startCalendarProviderBEmulator();
    providerB = settingsFrom(emulator.env('CALENDAR_PROVIDER_B'), 'CALENDAR_PROVIDER_B');
    emulators.push({ provider: 'calendar_provider_b', url: emulator.url, close: () => emulator.close() });
  }
  return { config: { ...config, calendarSync: { ...config.calendarSync, providerA, providerB } }, emulators };
}
