// One webhook endpoint: pause and resume, a test delivery, its events, and its recent deliveries
// with each attempt's outcome.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { unwrap } from '../../api/client.js';
import { errorText } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Delivery, Organisation } from '../../api/types.js';
import { formatDateTime } from '../../lib/time.js';
import { LoadError, Loading } from '../ui.js';
import { StatusBadge } from './WebhookList.js';

const deliveryWords: Record<Delivery['status'], string> = {
  pending: 'waiting to be sent',
  succeeded: 'delivered',
  failed: 'failed',
};

export function WebhookDetail(props: { org: Organisation }) {
  const { org } = props;
  const webhookId = Number(useParams().webhookId);
  const queryClient = useQueryClient();
  const path = { id: org.id, webhookId };
  const hook = useQuery({
    queryKey: queryKeys.webhook(org.id, webhookId),
    queryFn: () => unwrap(authed.GET('/api/organisations/{id}/webhooks/{webhookId}', { params: { path } })),
  });
  const deliveries = useQuery({
    queryKey: queryKeys.deliveries(org.id, webhookId),
    queryFn: () =>
      unwrap(authed.GET('/api/organisations/{id}/webhooks/{webhookId}/deliveries', { params: { path } })),
    // While something waits to be sent, its outcome comes soon: look again.
    refetchInterval: (q) => (q.state.data?.items.some((d) => d.status === 'pending') ? 2000 : false),
  });
  const refreshDeliveries = () =>
    queryClient.invalidateQueries({ queryKey: queryKeys.deliveries(org.id, webhookId) });
  const setStatus = useMutation({
    mutationFn: (status: 'active' | 'paused') =>
      unwrap(
        authed.PATCH('/api/organisations/{id}/webhooks/{webhookId}', { params: { path }, body: { status } }),
      ),
    onSuccess: (updated) => {
      queryClient.setQueryData(queryKeys.webhook(org.id, webhookId), updated);
      return queryClient.invalidateQueries({ queryKey: queryKeys.webhooks(org.id) });
    },
  });
  const sendTest = useMutation({
    mutationFn: () =>
      unwrap(authed.POST('/api/organisations/{id}/webhooks/{webhookId}/test', { params: { path } })),
    onSuccess: refreshDeliveries,
  });
  const retry = useMutation({
    mutationFn: (deliveryId: number) =>
      unwrap(
        authed.POST('/api/organisations/{id}/webhooks/{webhookId}/deliveries/{deliveryId}/retry', {
          params: { path: { ...path, deliveryId } },
        }),
      ),
    onSuccess: refreshDeliveries,
  });
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
      <dl className="summary">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={h.status} />
          {h.disabledAt
            ? ` since ${formatDateTime(h.disabledAt, org.timezone)}, after 3 days of failures`
            : ''}
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
      {(
        [
          ['status', setStatus],
          ['test', sendTest],
          ['retry', retry],
        ] as const
      ).map(([name, m]) =>
        m.isError ? (
          <p role="alert" className="error" key={name}>
            {errorText(m.error)}
          </p>
        ) : null,
      )}
      <h2>Deliveries</h2>
      <p className="hint">Newest first. Times in {org.timezone.replaceAll('_', ' ')}.</p>
      {deliveries.isPending ? <Loading /> : null}
      {deliveries.isError ? <LoadError error={deliveries.error} /> : null}
      {deliveries.data?.items.length === 0 ? <p className="empty">Nothing sent yet.</p> : null}
      {deliveries.data?.items.length ? (
        <ul className="record-list deliveries">
          {deliveries.data.items.map((d) => (
            <li key={d.id} data-delivery={d.id}>
              <div>
                <strong>{d.eventType}</strong>{' '}
                <span className={`badge delivery-${d.status}`}>{deliveryWords[d.status]}</span>
                <span className="hint">
                  {formatDateTime(d.createdAt, org.timezone)} · {d.attempts}{' '}
                  {d.attempts === 1 ? 'attempt' : 'attempts'}
                  {d.lastStatusCode != null ? ` · answered ${d.lastStatusCode}` : ''}
                  {d.lastError ? ` · ${d.lastError}` : ''}
                  {d.status === 'pending' && d.nextAttemptAt
                    ? ` · next try ${formatDateTime(d.nextAttemptAt, org.timezone)}`
                    : ''}
                </span>
              </div>
              {d.status !== 'succeeded' ? (
                <button
                  type="button"
                  className="secondary"
                  disabled={retry.isPending}
                  aria-label={`Send ${d.eventType} of ${formatDateTime(d.createdAt, org.timezone)} again`}
                  onClick={() => retry.mutate(d.id)}
                >
                  Send again
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </main>
  );
}
