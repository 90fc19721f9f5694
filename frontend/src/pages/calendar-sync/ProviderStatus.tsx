// The providers' status on the calendar-sync page: each provider's connection and synced
// calendars, with its connect or disconnect button, then refresh and sync now.
import type { ProviderName, SyncProvider } from '../../api/types.js';
import { CONNECTION_STATE_WORDS } from '../../lib/calendar-providers.js';
import { providerName } from './use-calendar-sync.js';

function formatTime(iso: string | null): string {
  if (!iso) return 'not yet';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? 'unknown' : date.toLocaleString();
}

export function ProviderStatus(props: {
  providers: SyncProvider[];
  busy: boolean;
  onConnect: (provider: ProviderName) => void;
  onDisconnect: (provider: ProviderName) => void;
  onRefresh: () => void;
  onForce: () => void;
}) {
  const { providers, busy } = props;
  return (
    <section id="view-status" aria-labelledby="status-title">
      <h2 id="status-title" className="visually-hidden">
        Your calendar providers
      </h2>
      {providers.length === 0 ? (
        <p className="empty">No calendar providers are set up on this service.</p>
      ) : null}
      <ul id="providers" className="providers">
        {providers.map((item) => (
          <ProviderItem
            key={item.provider}
            item={item}
            busy={busy}
            onConnect={() => props.onConnect(item.provider)}
            onDisconnect={() => props.onDisconnect(item.provider)}
          />
        ))}
      </ul>
      <div className="actions">
        <button id="refresh" type="button" className="secondary" disabled={busy} onClick={props.onRefresh}>
          Refresh
        </button>
        <button id="force" type="button" className="primary" disabled={busy} onClick={props.onForce}>
          Sync now
        </button>
      </div>
    </section>
  );
}

function ProviderItem(props: {
  item: SyncProvider;
  busy: boolean;
  onConnect: () => void;
  onDisconnect: () => void;
}) {
  const { item, busy, onConnect, onDisconnect } = props;
  const state = item.connectionState ?? (item.isConnected ? 'connected' : 'not_connected');
  const name = providerName(item.provider);
  const headingId = `provider-${item.provider}`;
  return (
    <li className="provider">
      <h3 id={headingId}>
        {name}
        <span className={`state ${state}`}>{CONNECTION_STATE_WORDS[state] ?? state}</span>
      </h3>
      {item.isConnected ? (
        <p className="hint">
          {item.calendars.length} calendar(s) at the provider, {item.syncedCalendars.length} synced.
        </p>
      ) : null}
      {item.syncedCalendars.length > 0 ? (
        <ul className="synced">
          {item.syncedCalendars.map((synced) => (
            <li key={synced.localCalendarId}>
              {synced.localName} ({synced.bidirectionalSync ? 'two-way' : 'one-way'}), last synced{' '}
              {formatTime(synced.lastSyncedAt)}
            </li>
          ))}
        </ul>
      ) : null}
      {item.lastError ? <p className="hint">Last problem: {item.lastError.message}</p> : null}
      <div className="actions">
        {!item.isConnected ? (
          <button
            type="button"
            className="primary"
            aria-describedby={headingId}
            disabled={busy}
            onClick={onConnect}
          >
            {state === 'needs_reconnect' ? 'Reconnect' : 'Connect'}
          </button>
        ) : null}
        {state !== 'not_connected' ? (
          <button
            type="button"
            className="secondary"
            aria-describedby={headingId}
            disabled={busy}
            onClick={onDisconnect}
          >
            Disconnect
          </button>
        ) : null}
      </div>
    </li>
  );
}
