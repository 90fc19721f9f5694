// The active organisation's payment connection (OWNER, ADMIN): its status as the provider
// reports it, onboarding at the provider (the browser goes to the provider's link and comes
// back), the provider's dashboard, and disconnecting.
// Its currency too: new types are priced in it and agent policies count in it.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { unwrap } from '../../api/client.js';
import { errorText, fieldErrors } from '../../api/errors.js';
import { useActiveOrganisation } from '../../api/hooks.js';
import { authed } from '../../api/session.js';
import type { Organisation, PaymentStatus } from '../../api/types.js';
import { ConfirmBox } from '../../components/ConfirmBox.js';
import { Status, yesNo } from '../account-ui.js';
import { NoActive } from '../catalogue/Catalogue.js';
import { submitted } from '../form-state.js';
import { Field, FormError, LoadError, Loading } from '../ui.js';
import { organisationCurrency } from './currency.js';
import { isAdmin } from './roles.js';
import { type PaymentConnectionState, usePaymentConnection } from './use-payment-connection.js';

export default function Payments() {
  const org = useActiveOrganisation();
  if (org.isPending) return <Loading />;
  if (org.isError) return <LoadError error={org.error} />;
  if (!org.active) return <NoActive />;
  return <PaymentConnection key={org.active.id} org={org.active} />;
}

const STATE_WORDS: Record<PaymentStatus['providerConnectStatus'], string> = {
  not_connected: 'Not connected',
  pending: 'Onboarding not finished',
  active: 'Connected',
};

function PaymentConnection(props: { org: Organisation }) {
  const { org } = props;
  const [params] = useSearchParams();
  const returned = params.get('onboarding');
  const connection = usePaymentConnection(org);
  const { status } = connection;

  if (!isAdmin(org.role))
    return (
      <main className="page">
        <h1>Payments</h1>
        <p className="empty">Only owners and admins of {org.name} see and change its payment connection.</p>
      </main>
    );
  return (
    <main className="page">
      <h1>Payments</h1>
      <p className="hint">
        {org.name} takes payment for priced types through its own account at the payment provider.
      </p>
      {returned === 'complete' ? <p className="notice">Back from the payment provider.</p> : null}
      {returned === 'refresh' ? (
        <p role="alert" className="error">
          The onboarding link ran out before it was finished. Continue onboarding below for a new one.
        </p>
      ) : null}
      {status.isPending ? <Loading /> : null}
      {status.isError ? <LoadError error={status.error} /> : null}
      {status.data ? <PaymentAccount status={status.data} connection={connection} /> : null}
      <CurrencyForm org={org} />
    </main>
  );
}

/** The account's state, what is still due, and the buttons that change it. */
function PaymentAccount({
  status: s,
  connection,
}: {
  status: PaymentStatus;
  connection: PaymentConnectionState;
}) {
  const { onboard, dashboard, disconnect, confirming, setConfirming } = connection;
  const failed = onboard.error ?? dashboard.error ?? disconnect.error;
  return (
    <section aria-labelledby="payment-state">
      <h2 id="payment-state">
        Payment account{' '}
        <span className={`badge payment-${s.providerConnectStatus}`}>
          {STATE_WORDS[s.providerConnectStatus]}
        </span>
      </h2>
      <AccountFacts status={s} />
      {failed ? (
        <p role="alert" className="error">
          {errorText(failed)}
        </p>
      ) : null}
      <Status>
        {onboard.isPending || onboard.isSuccess || dashboard.isPending || dashboard.isSuccess
          ? 'Taking you to the payment provider…'
          : disconnect.isSuccess
            ? 'The payment account is disconnected.'
            : ''}
      </Status>
      <PaymentButtons status={s} connection={connection} />
      {confirming ? (
        <ConfirmBox
          title="Disconnect the payment account?"
          level={3}
          confirm="Yes, disconnect"
          keep="Keep it"
          pending={disconnect.isPending}
          onConfirm={() => disconnect.mutate()}
          onKeep={() => setConfirming(false)}
        >
          <p>
            Priced types cannot be booked until an account is connected again. The account itself stays at the
            provider.
          </p>
        </ConfirmBox>
      ) : null}
    </section>
  );
}

function AccountFacts({ status: s }: { status: PaymentStatus }) {
  return (
    <>
      {s.providerConnectStatus === 'not_connected' ? (
        <p className="empty">No payment account yet: priced types cannot be booked until one is connected.</p>
      ) : (
        <dl className="summary">
          <dt>Account</dt>
          <dd className="url">{s.providerAccountId}</dd>
          <dt>Takes charges</dt>
          <dd>{yesNo(s.chargesEnabled)}</dd>
          <dt>Pays out</dt>
          <dd>{yesNo(s.payoutsEnabled)}</dd>
          <dt>Details submitted</dt>
          <dd>{yesNo(s.detailsSubmitted)}</dd>
          <dt>Default currency</dt>
          <dd>{s.defaultCurrency.toUpperCase()}</dd>
          {s.disabledReason ? (
            <>
              <dt>Held back because</dt>
              <dd>{s.disabledReason}</dd>
            </>
          ) : null}
          {s.currentlyDue.length ? (
            <>
              <dt>Still due</dt>
              <dd>{s.currentlyDue.join(', ')}</dd>
            </>
          ) : null}
          {s.pendingVerification.length ? (
            <>
              <dt>Being verified</dt>
              <dd>{s.pendingVerification.join(', ')}</dd>
            </>
          ) : null}
        </dl>
      )}
    </>
  );
}

function PaymentButtons({
  status: s,
  connection,
}: {
  status: PaymentStatus;
  connection: PaymentConnectionState;
}) {
  const { onboard, dashboard, confirming, setConfirming } = connection;
  return (
    <div className="actions">
      {s.providerConnectStatus !== 'active' || s.requiresOnboarding ? (
        <button
          type="button"
          className="primary"
          disabled={onboard.isPending}
          onClick={() => onboard.mutate()}
        >
          {s.providerConnectStatus === 'not_connected' ? 'Connect a payment account' : 'Continue onboarding'}
        </button>
      ) : null}
      {s.providerConnectStatus === 'active' ? (
        <button
          type="button"
          className="secondary"
          disabled={dashboard.isPending}
          onClick={() => dashboard.mutate()}
        >
          Open the provider's dashboard
        </button>
      ) : null}
      {s.providerConnectStatus !== 'not_connected' && !confirming ? (
        <button type="button" className="danger secondary" onClick={() => setConfirming(true)}>
          Disconnect
        </button>
      ) : null}
    </div>
  );
}

/** The organisation's currency: new types are priced in it and agent policies count in it. */
function CurrencyForm(props: { org: Organisation }) {
  const { org } = props;
  const queryClient = useQueryClient();
  const [currency, setCurrency] = useState(organisationCurrency(org));
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        authed.PATCH('/api/organisations/{id}/billing', {
          params: { path: { id: org.id } },
          body: { defaultCurrency: currency },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries(),
  });
  return (
    <section aria-labelledby="currency-heading">
      <h2 id="currency-heading">Currency</h2>
      <form noValidate onSubmit={submitted(save.mutate)}>
        <Field
          name="defaultCurrency"
          label="Currency (three letters, e.g. EUR)"
          value={currency}
          hint="New types are priced in it, and agent policies' amounts count in it. Prices already set keep theirs."
          error={fieldErrors(save.error).defaultCurrency}
          onChange={(v) => setCurrency(v.toUpperCase())}
        />
        <FormError error={save.error} shown={['defaultCurrency']} />
        <Status>
          {save.isSuccess ? `Saved: ${org.name} counts in ${save.data.defaultCurrency.toUpperCase()}.` : ''}
        </Status>
        <div className="actions">
          <button type="submit" className="secondary" disabled={save.isPending}>
            Save the currency
          </button>
        </div>
      </form>
    </section>
  );
}
