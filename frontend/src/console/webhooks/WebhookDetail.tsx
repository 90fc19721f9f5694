// One webhook endpoint: pause and resume, a test delivery, its events, and its recent deliveries
// with each attempt's outcome.
import { Link, useParams } from 'react-router';
import { useDeliveries, useWebhook } from '../../api/hooks.js';
import type { Delivery, Organisation, Webhook } from '../../api/types.js';
import { formatDateTime } from '../../lib/time.js';
import { LoadError, Loading, RequestErrors } from '../ui.js';
import { useWebhookActions, type WebhookActions } from './use-webhook.js';
import { StatusBadge } from './WebhookList.js';

const deliveryWords: Record<Delivery['status'], string> = {
  pending: 'waiting to be sent',
  succeeded: 'delivered',
  failed: 'failed',
};

export function WebhookDetail(props: { org: Organisation }) {
  const { org } = props;
  const webhookId = Number(useParams().webhookId);
  const hook = useWebhook(org.id, webhookId);
  const deliveries = useDeliveries(org.id, webhookId);
  const actions = useWebhookActions(org.id, webhookId);
  if (hook.isPending) return <Loading />;
  if (hook.isError)
    return (
      <main className="page">
        <LoadError error={hook.error} />
        <Link to="/app/webhooks">All webhooks</Link>
      </main>
    );
  const h = hook.data;
  return (
    <main className="page">
      <p>
        <Link to="/app/webhooks">All webhooks</Link>
      </p>
      <h1 className="url">{h.url}</h1>
      <WebhookFacts webhook={h} zone={org.timezone} />
      <WebhookButtons webhook={h} actions={actions} />
      <RequestErrors requests={{ status: actions.setStatus, test: actions.sendTest, retry: actions.retry }} />
      <h2>Deliveries</h2>
      <p className="hint">Newest first. Times in {org.timezone.replaceAll('_', ' ')}.</p>
      {deliveries.isPending ? <Loading /> : null}
      {deliveries.isError ? <LoadError error={deliveries.error} /> : null}
      {deliveries.data?.items.length === 0 ? <p className="empty">Nothing sent yet.</p> : null}
      {deliveries.data?.items.length ? (
        <DeliveryList deliveries={deliveries.data.items} zone={org.timezone} actions={actions} />
      ) : null}
    </main>
  );
}

function WebhookFacts({ webhook: h, zone }: { webhook: Webhook; zone: string }) {
  return (
    <dl className="summary">
      <dt>Status</dt>
      <dd>
        <StatusBadge status={h.status} />
        {h.disabledAt ? ` since ${formatDateTime(h.disabledAt, zone)}, after 3 days of failures` : ''}
      </dd>
      {h.description ? (
        <>
          <dt>Description</dt>
          <dd>{h.description}</dd>
        </>
      ) : null}
      <dt>Events</dt>
      <dd>{h.events.join(', ')}</dd>
    </dl>
  );
}

function WebhookButtons({ webhook: h, actions }: { webhook: Webhook; actions: WebhookActions }) {
  const { setStatus, sendTest } = actions;
  return (
    <div className="actions">
      {h.status === 'active' ? (
        <button
          type="button"
          className="secondary"
          disabled={setStatus.isPending}
          onClick={() => setStatus.mutate('paused')}
        >
          Pause deliveries
        </button>
      ) : (
        <button
          type="button"
          className="secondary"
          disabled={setStatus.isPending}
          onClick={() => setStatus.mutate('active')}
        >
          {h.status === 'disabled' ? 'Turn on again' : 'Resume deliveries'}
        </button>
      )}
      <button
        type="button"
        className="secondary"
        disabled={sendTest.isPending}
        onClick={() => sendTest.mutate()}
      >
        Send a test event
      </button>
    </div>
  );
}

function DeliveryList(props: { deliveries: Delivery[]; zone: string; actions: WebhookActions }) {
  const { deliveries, zone } = props;
  const { retry } = props.actions;
  return (
    <ul className="record-list deliveries">
      {deliveries.map((d) => (
        <li key={d.id} data-delivery={d.id}>
          <div>
            <strong>{d.eventType}</strong>{' '}
            <span className={`badge delivery-${d.status}`}>{deliveryWords[d.status]}</span>
            <span className="hint">
              {formatDateTime(d.createdAt, zone)} · {d.attempts} {d.attempts === 1 ? 'attempt' : 'attempts'}
              {d.lastStatusCode != null ? ` · answered ${d.lastStatusCode}` : ''}
              {d.lastError ? ` · ${d.lastError}` : ''}
              {d.status === 'pending' && d.nextAttemptAt
                ? ` · next try ${formatDateTime(d.nextAttemptAt, zone)}`
                : ''}
            </span>
          </div>
          {d.status !== 'succeeded' ? (
            <button
              type="button"
              className="secondary"
              disabled={retry.isPending}
              aria-label={`Send ${d.eventType} of ${formatDateTime(d.createdAt, zone)} again`}
              onClick={() => retry.mutate(d.id)}
            >
              Send again
            </button>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
