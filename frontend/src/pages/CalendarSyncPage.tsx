// The calendar-sync landing page (`/calendar-sync`): where a provider connect starts (the
// Connect buttons, or `?connect=<provider>` from another app) and ends (the callback's redirect
// with `success=connected&provider=<p>` or `error=<code>&message=<text>`), and each provider's
// status. The connect call is made from this page so its binding cookie lands in the browser the
// provider sends back to the callback. Every server value is drawn as text, never as markup.
import { AccountPage, Loading, SignInForm, useAnnouncer, useFocus, usePageTitle } from './account-page.js';
import { ProviderStatus } from './calendar-sync/ProviderStatus.js';
import { useCalendarSync } from './calendar-sync/use-calendar-sync.js';

export default function CalendarSyncPage() {
  usePageTitle('Calendar sync');
  const announcer = useAnnouncer();
  const focus = useFocus();
  const sync = useCalendarSync(announcer, focus);
  const { result, view, busy } = sync;

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
          <SignInForm busy={busy} announcer={announcer} onSignIn={sync.onSignIn} />
        </section>
      ) : null}

      {view === 'status' ? (
        <ProviderStatus
          providers={sync.providers}
          busy={busy}
          onConnect={sync.connect}
          onDisconnect={sync.onDisconnect}
          onRefresh={sync.refresh}
          onForce={sync.onForce}
        />
      ) : null}
    </AccountPage>
  );
}
