import type { Config } from '../../../config.js';
import type { CalendarProviderPort, SyncProvider } from './port.js';
import { createProviderA } from './provider-a.js';
import { createProviderB } from './provider-b.js';

export type ProviderRegistry = Record<SyncProvider, CalendarProviderPort | undefined>;

/** The configured providers; one left unconfigured is undefined (its routes answer PROVIDER_ERROR). */
export function providersFor(config: Config, fetchImpl?: typeof globalThis.fetch): ProviderRegistry {
  const { providerA, providerB, timeoutMs } = config.calendarSync;
  return {
    calendar_provider_a: providerA
      ? createProviderA({ settings: providerA, timeoutMs, ...(fetchImpl ? { fetch: fetchImpl } : {}) })
      : undefined,
    calendar_provider_b: providerB
      ? createProviderB({ settings: providerB, timeoutMs, ...(fetchImpl ? { fetch: fetchImpl } : {}) })
      : undefined,
  };
}
