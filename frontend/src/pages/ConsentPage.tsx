// The OAuth consent page (`/oauth/consent?<the authorize request's query>`): the authorize
// endpoint sends the browser here; the person signs in, sees the client and where it will send
// them back, picks what it may do, and approves or denies. The parameters go on unchanged to
// `GET /api/oauth/consent-details` and `POST /api/oauth/consent`; the answer's redirect is
// followed only back to the registered address. Every client-supplied value is drawn as text.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { unwrap } from '../api/client.js';
import { detailedMessageOf } from '../api/errors.js';
import type { paths } from '../api/schema.js';
import { asSignedIn, authed, type Credentials, resume, SignedOut, signIn, signOut } from '../api/session.js';
import { AccountPage, Loading, SignInForm, useAnnouncer, useFocus, usePageTitle } from './account-page.js';
import { Consent, type Details } from './ConsentRequest.js';
import { safeRedirect } from './consent-urls.js';

type DetailsQuery = paths['/api/oauth/consent-details']['get']['parameters']['query'];
type ConsentBody = paths['/api/oauth/consent']['post']['requestBody']['content']['application/json'];
type View =
  | { name: 'loading' }
  | { name: 'signin' }
  | { name: 'consent'; details: Details }
  | { name: 'failure'; message: string };

/** The authorize request's parameters the details call checks, passed on as they came. */
const DETAIL_PARAMS = [
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'response_type',
  'resource',
] as const;

const REQUIRED_PARAMS = ['client_id', 'redirect_uri', 'code_challenge'] as const;

const SESSION_ENDED = 'Your session has ended. Sign in again to continue.';

export default function ConsentPage() {
  usePageTitle('Connect an app');
  // The query as the page was opened with it; nothing on this page changes the address.
  const params = useMemo(() => new URLSearchParams(window.location.search), []);
  const announcer = useAnnouncer();
  const { announce, alertError, clear } = announcer;
  const focus = useFocus();
  const [view, setView] = useState<View>({ name: 'loading' });
  const [busy, setBusy] = useState(false);

  const show = useCallback(
    (next: View, focusId: string) => {
      setView(next);
      focus(focusId);
    },
    [focus],
  );
  const showFailure = useCallback(
    (message: string) => {
      clear();
      show({ name: 'failure', message }, 'failure-title');
    },
    [clear, show],
  );
  const showSignIn = useCallback(
    (message?: string) => {
      clear();
      setBusy(false);
      show({ name: 'signin' }, 'email');
      if (message) alertError(message);
    },
    [clear, show, alertError],
  );

  const loadDetails = useCallback(async () => {
    const query: Record<string, string> = {};
    for (const name of DETAIL_PARAMS) {
      const value = params.get(name);
      if (value !== null) query[name] = value;
    }
    announce('Loading the request…');
    try {
      const details = await asSignedIn(() =>
        unwrap(authed.GET('/api/oauth/consent-details', { params: { query: query as DetailsQuery } })),
      );
      clear();
      show({ name: 'consent', details }, 'consent-title');
    } catch (error) {
      if (error instanceof SignedOut) showSignIn(SESSION_ENDED);
      // No redirect on a bad request: the redirect address itself may be what is wrong.
      else showFailure(detailedMessageOf(error));
    }
  }, [params, announce, clear, show, showSignIn, showFailure]);

  useEffect(() => {
    const missing = REQUIRED_PARAMS.filter((name) => !params.get(name));
    if (missing.length > 0) {
      showFailure(`The link that opened this page is incomplete (missing ${missing.join(', ')}).`);
      return;
    }
    resume().then(
      (signedIn) => (signedIn ? loadDetails() : showSignIn()),
      (error: unknown) => showFailure(detailedMessageOf(error)),
    );
  }, [params, loadDetails, showSignIn, showFailure]);

  // Back from the app's page: a page restored from the back-forward cache would show a spent request.
  useEffect(() => {
    const onShow = (event: PageTransitionEvent) => {
      if (event.persisted) window.location.reload();
    };
    window.addEventListener('pageshow', onShow);
    return () => window.removeEventListener('pageshow', onShow);
  }, []);

  async function onSignIn(credentials: Credentials) {
    clear();
    setBusy(true);
    announce('Signing in…');
    try {
      await signIn(credentials);
    } finally {
      setBusy(false);
    }
    await loadDetails();
  }

  async function onSwitchAccount() {
    if (busy) return;
    setBusy(true);
    announce('Signing out…');
    await signOut();
    showSignIn();
    announce('Signed out. Sign in with another account.');
  }

  async function decide(approve: boolean, chosen: string | null) {
    if (busy) return;
    if (approve && !chosen) {
      alertError('Choose what the app may do first.');
      return;
    }
    clear();
    setBusy(true);
    announce(approve ? 'Approving…' : 'Denying…');
    const body: ConsentBody = {
      clientId: params.get('client_id') ?? '',
      redirectUri: params.get('redirect_uri') ?? '',
      state: params.get('state') ?? '',
      codeChallenge: params.get('code_challenge') ?? '',
      approve,
      permissionGroupId: chosen,
    };
    // RFC 8707: the resource of the authorize request, when the app named one.
    const resource = params.get('resource');
    if (resource !== null) body.resource = resource;
    let redirectUrl: string;
    try {
      ({ redirectUrl } = await asSignedIn(() => unwrap(authed.POST('/api/oauth/consent', { body }))));
    } catch (error) {
      setBusy(false);
      announce('');
      if (error instanceof SignedOut) showSignIn(SESSION_ENDED);
      else alertError(detailedMessageOf(error));
      return;
    }
    const target = safeRedirect(redirectUrl, params.get('redirect_uri'));
    if (!target) {
      setBusy(false);
      showFailure('The service answered with an unexpected address, so this page stays here.');
      return;
    }
    announce(`Sending you back to ${new URL(target).host}…`);
    window.location.assign(target);
  }

  return (
    <AccountPage busy={busy || view.name === 'loading'} announcer={announcer}>
      {view.name === 'loading' ? <Loading what="the request" /> : null}

      {view.name === 'signin' ? (
        <section id="view-signin" aria-labelledby="signin-title">
          <h1 id="signin-title" tabIndex={-1}>
            Sign in to continue
          </h1>
          <p className="hint">
            An app wants to connect to your Reservation Service account. Sign in to review its request.
          </p>
          <SignInForm busy={busy} announcer={announcer} onSignIn={onSignIn} />
        </section>
      ) : null}

      {view.name === 'consent' ? (
        <Consent
          details={view.details}
          redirectParam={params.get('redirect_uri')}
          busy={busy}
          onDecide={decide}
          onSwitchAccount={onSwitchAccount}
        />
      ) : null}

      {view.name === 'failure' ? (
        <section id="view-failure" aria-labelledby="failure-title">
          <h1 id="failure-title" tabIndex={-1}>
            This request cannot be completed
          </h1>
          <p id="failure-message" className="failure-message">
            {view.message}
          </p>
          <p className="hint">Go back to the app you came from and start connecting again.</p>
        </section>
      ) : null}
    </AccountPage>
  );
}
