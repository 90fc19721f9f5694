// The calendar-sync landing page (`/calendar-sync`): where a provider connect starts (the
// Connect buttons, or `?connect=<provider>` from another app) and ends (the callback's redirect
// with `success=connected&provider=<p>` or `error=<code>&message=<text>`), and each provider's
// status. The connect call is made from this page so its binding cookie lands in the browser the
// provider sends back to the callback. Every server value is drawn as text, never as markup.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { unwrap } from '../api/client.js';
import { messageOf } from '../api/errors.js';
import { asSignedIn, authed, type Credentials, SignedOut, signIn } from '../api/session.js';
import type { ProviderName, SyncProvider } from '../api/types.js';
import { CONNECTION_STATE_WORDS, PROVIDER_NAMES } from '../lib/calendar-providers.js';
import { AccountPage, Loading, SignInForm, useAnnouncer, useFocus, usePageTitle } from './account-page.js';

type Result = { kind: 'ok' | 'error'; text: string } | null;

const isProvider = (value: string | null): value is ProviderName =>
  value !== null && Object.hasOwn(PROVIDER_NAMES, value);
const providerName = (value: string | null) => (isProvider(value) ? PROVIDER_NAMES[value] : value);

/** The outcome the provider's redirect carried, and a provider to connect (`?connect=`). */
function readLanding(search: string): { result: Result; connect: ProviderName | null } {
  const params = new URLSearchParams(search);
  const wanted = params.get('connect');
  const provider = isProvider(params.get('provider'))
    ? PROVIDER_NAMES[params.get('provider') as ProviderName]
    : 'The calendar provider';
  let result: Result = null;
  if (params.get('success') === 'connected')
    result = { kind: 'ok', text: `${provider} is connected. Choose which calendars to sync.` };
  else if (params.has('error'))
    result = {
      kind: 'error',
      text: (params.get('message') ?? '').slice(0, 300) || 'Connecting the calendar failed. Try again.',
    };
  return { result, connect: isProvider(wanted) ? wanted : null };
}

function formatTime(iso: string | null): string {
  if (!iso) return 'not yet';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? 'unknown' : date.toLocaleString();
}

type View = 'loading' | 'signin' | 'status';

export default function CalendarSyncPage() {
  usePageTitle('Calendar sync');
  const location = useLocation();
  const navigate = useNavigate();
  // Read once: the address bar is cleaned right after, so a reload does not repeat the outcome.
  const [landing] = useState(() => readLanding(location.search));
  const pendingConnect = useRef<ProviderName | null>(landing.connect);
  const [result, setResult] = useState<Result>(landing.result);
  const announcer = useAnnouncer();
  const { alertError } = announcer;
  const focus = useFocus();
  const [view, setView] = useState<View>('loading');
  const [providers, setProviders] = useState<SyncProvider[]>([]);
  const [busy, setBusy] = useState(false);
  const busyRef = useRef(false);

  useEffect(() => {
    if (location.search) navigate(location.pathname, { replace: true });
  }, [location.search, location.pathname, navigate]);

  const note = useCallback((text: string) => setResult({ kind: 'ok', text }), []);

  /** Asks for the consent URL from this page, so this browser keeps the connect's binding cookie. */
  const startConnect = useCallback(
    async (provider: ProviderName) => {
      const answer = await asSignedIn(() =>
        unwrap(authed.GET('/api/calendar-sync/auth/{provider}', { params: { path: { provider } } })),
      );
      note(`Taking you to ${PROVIDER_NAMES[provider]}…`);
      window.location.assign(answer.authUrl);
    },
    [note],
  );

  const loadStatus = useCallback(async () => {
    const status = await asSignedIn(() => unwrap(authed.GET('/api/calendar-sync/status')));
    setProviders(status.providers);
    setView('status');
    const wanted = pendingConnect.current;
    pendingConnect.current = null;
    const item = wanted && status.providers.find((p) => p.provider === wanted);
    if (!wanted || !item) return;
    if (item.isConnected) note(`${PROVIDER_NAMES[wanted]} is already connected.`);
    else await startConnect(wanted);
  }, [note, startConnect]);

  /** One action at a time; no session shows the sign-in, any other failure the alert. */
  const run = useCallback(
    async (action: () => Promise<void>) => {
      if (busyRef.current) return;
      busyRef.current = true;
      setBusy(true);
      try {
        await action();
      } catch (error) {
        if (error instanceof SignedOut) {
          setView('signin');
          focus('email');
        } else alertError(messageOf(error));
      } finally {
        busyRef.current = false;
        setBusy(false);
      }
    },
    [alertError, focus],
  );

  useEffect(() => {
    void run(loadStatus);
  }, [run, loadStatus]);

  async function onSignIn(credentials: Credentials) {
    busyRef.current = true;
    setBusy(true);
    try {
      await signIn(credentials);
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
    await run(loadStatus);
  }

  const onDisconnect = (provider: ProviderName) =>
    run(async () => {
      await asSignedIn(() =>
        unwrap(authed.POST('/api/calendar-sync/disconnect/{provider}', { params: { path: { provider } } })),
      );
      announcer.clear();
      await loadStatus();
    });

  const onForce = () =>
    run(async () => {
      const answer = await asSignedIn(() => unwrap(authed.POST('/api/calendar-sync/force')));
      note(answer.message);
    });

  return (
    <AccountPage
      busy={busy || view === 'loading'}
      announcer={announcer}
      result={
        <>
          <h1 id="title" tabIndex={-1}>
            Calendar sync
          </h1>
          {/* The outcome of a connect (from the redirect), announced once. */}
          <div
            id="result"
            className={result ? `result ${result.kind}` : 'result'}
            role="status"
            aria-live="polite"
            hidden={!result}
          >
            {result?.text}
          </div>
        </>
      }
    >
      {view === 'loading' ? <Loading what="your calendar connections" /> : null}

      {view === 'signin' ? (
        <section id="view-signin" aria-labelledby="signin-title">
          <h2 id="signin-title" tabIndex={-1}>
            Sign in to see your calendar connections
          </h2>
          <SignInForm busy={busy} announcer={announcer} onSignIn={onSignIn} />
        </section>
      ) : null}

      {view === 'status' ? (
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
                onConnect={() => run(() => startConnect(item.provider))}
                onDisconnect={() => onDisconnect(item.provider)}
              />
            ))}
          </ul>
          <div className="actions">
            <button
              id="refresh"
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() => run(loadStatus)}
            >
              Refresh
            </button>
            <button id="force" type="button" className="primary" disabled={busy} onClick={onForce}>
              Sync now
            </button>
          </div>
        </section>
      ) : null}
    </AccountPage>
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
