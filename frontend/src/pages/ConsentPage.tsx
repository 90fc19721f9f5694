// The OAuth consent page (`/oauth/consent?<the authorize request's query>`): the authorize
// endpoint sends the browser here; the person signs in, sees the client and where it will send
// them back, picks what it may do, and approves or denies. The parameters go on unchanged to
// `GET /api/oauth/consent-details` and `POST /api/oauth/consent`; the answer's redirect is
// followed only back to the registered address. Every client-supplied value is drawn as text.
import { useMemo } from 'react';
import { AccountPage, Loading, SignInForm, useAnnouncer, useFocus, usePageTitle } from './account-page.js';
import { Consent } from './consent/ConsentRequest.js';
import { useConsent } from './consent/use-consent.js';

export default function ConsentPage() {
  usePageTitle('Connect an app');
  // The query as the page was opened with it; nothing on this page changes the address.
  const params = useMemo(() => new URLSearchParams(window.location.search), []);
  const announcer = useAnnouncer();
  const focus = useFocus();
  const { view, busy, onSignIn, onSwitchAccount, decide } = useConsent(params, announcer, focus);

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
