// The calendar-sync page's state and actions: the outcome the provider's redirect carried, the
// providers' status, and connecting, disconnecting and syncing, one action at a time.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { unwrap } from '../../api/client.js';
import { messageOf } from '../../api/errors.js';
import { asSignedIn, authed, type Credentials, SignedOut, signIn } from '../../api/session.js';
import type { ProviderName, SyncProvider } from '../../api/types.js';
import { PROVIDER_NAMES } from '../../lib/calendar-providers.js';
import type { Announcer } from '../account-page.js';

export type Result = { kind: 'ok' | 'error'; text: string } | null;

const isProvider = (value: string | null): value is ProviderName =>
  value !== null && Object.hasOwn(PROVIDER_NAMES, value);
export const providerName = (value: string | null) => (isProvider(value) ? PROVIDER_NAMES[value] : value);

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

export type View = 'loading' | 'signin' | 'status';

/** The landing's outcome, shown once: the address bar is cleaned right after, so a reload does not repeat it. */
function useLanding() {
  const location = useLocation();
  const navigate = useNavigate();
  const [landing] = useState(() => readLanding(location.search));
  const pendingConnect = useRef<ProviderName | null>(landing.connect);
  const [result, setResult] = useState<Result>(landing.result);
  useEffect(() => {
    if (location.search) navigate(location.pathname, { replace: true });
  }, [location.search, location.pathname, navigate]);
  const note = useCallback((text: string) => setResult({ kind: 'ok', text }), []);
  /** The provider `?connect=` asked for, handed out once. */
  const takeConnect = useCallback(() => {
    const wanted = pendingConnect.current;
    pendingConnect.current = null;
    return wanted;
  }, []);
  return { takeConnect, result, note };
}

/** One action at a time; no session shows the sign-in, any other failure the alert. */
function useRunner(announcer: Announcer, focus: (id: string) => void, setView: (view: View) => void) {
  const { alertError } = announcer;
  const [busy, setBusy] = useState(false);
  const busyRef = useRef(false);
  const hold = useCallback((on: boolean) => {
    busyRef.current = on;
    setBusy(on);
  }, []);
  const run = useCallback(
    async (action: () => Promise<void>) => {
      if (busyRef.current) return;
      hold(true);
      try {
        await action();
      } catch (error) {
        if (error instanceof SignedOut) {
          setView('signin');
          focus('email');
        } else alertError(messageOf(error));
      } finally {
        hold(false);
      }
    },
    [alertError, focus, hold, setView],
  );
  return { busy, hold, run };
}

export function useCalendarSync(announcer: Announcer, focus: (id: string) => void) {
  const { takeConnect, result, note } = useLanding();
  const [view, setView] = useState<View>('loading');
  const [providers, setProviders] = useState<SyncProvider[]>([]);
  const { busy, hold, run } = useRunner(announcer, focus, setView);

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
    const wanted = takeConnect();
    const item = wanted && status.providers.find((p) => p.provider === wanted);
    if (!wanted || !item) return;
    if (item.isConnected) note(`${PROVIDER_NAMES[wanted]} is already connected.`);
    else await startConnect(wanted);
  }, [note, startConnect, takeConnect]);

  useEffect(() => {
    void run(loadStatus);
  }, [run, loadStatus]);

  async function onSignIn(credentials: Credentials) {
    hold(true);
    try {
      await signIn(credentials);
    } finally {
      hold(false);
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
  const connect = (provider: ProviderName) => run(() => startConnect(provider));
  const refresh = () => run(loadStatus);
  return { result, view, providers, busy, onSignIn, connect, onDisconnect, onForce, refresh };
}
