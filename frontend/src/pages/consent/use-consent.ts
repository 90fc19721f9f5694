// The consent page's state and steps: which view shows, loading the request's details, signing
// in or switching account, and sending the decision (then following the redirect back).
import { useCallback, useEffect, useState } from 'react';
import { unwrap } from '../../api/client.js';
import { detailedMessageOf } from '../../api/errors.js';
import type { paths } from '../../api/schema.js';
import {
  asSignedIn,
  authed,
  type Credentials,
  resume,
  SignedOut,
  signIn,
  signOut,
} from '../../api/session.js';
import type { Announcer } from '../account-page.js';
import type { Details } from './ConsentRequest.js';
import { safeRedirect } from './consent-urls.js';

type DetailsQuery = paths['/api/oauth/consent-details']['get']['parameters']['query'];
type ConsentBody = paths['/api/oauth/consent']['post']['requestBody']['content']['application/json'];
export type View =
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

/** The view shown, and `busy` while a step runs. */
function useConsentViews(announcer: Announcer, focus: (id: string) => void) {
  const { alertError, clear } = announcer;
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
  return { view, busy, setBusy, show, showFailure, showSignIn };
}

type ConsentViews = ReturnType<typeof useConsentViews>;

/** Loads the request's details once signed in; `loadDetails` again after signing in. */
function useConsentDetails(params: URLSearchParams, views: ConsentViews, announcer: Announcer) {
  const { announce, clear } = announcer;
  const { show, showSignIn, showFailure } = views;
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
  return loadDetails;
}

/** The decision as the consent route takes it: the authorize request's values and the choice. */
function consentBody(params: URLSearchParams, approve: boolean, chosen: string | null): ConsentBody {
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
  return body;
}

export function useConsent(params: URLSearchParams, announcer: Announcer, focus: (id: string) => void) {
  const { announce, alertError, clear } = announcer;
  const views = useConsentViews(announcer, focus);
  const { busy, setBusy, showSignIn, showFailure } = views;
  const loadDetails = useConsentDetails(params, views, announcer);

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
    const body = consentBody(params, approve, chosen);
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
  return { view: views.view, busy, onSignIn, onSwitchAccount, decide };
}
