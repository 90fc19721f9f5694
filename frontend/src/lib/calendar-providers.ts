// The calendar providers and their connection states in words, as the console's calendar sync
// and the /calendar-sync landing page name them.
import type { ProviderName, SyncProvider } from '../api/types.js';

export const PROVIDER_NAMES: Record<ProviderName, string> = {
  calendar_provider_a: 'Calendar provider A',
  calendar_provider_b: 'Calendar provider B',
};

export const CONNECTION_STATE_WORDS: Record<SyncProvider['connectionState'], string> = {
  connected: 'Connected',
  needs_reconnect: 'Needs reconnecting',
  not_connected: 'Not connected',
};
