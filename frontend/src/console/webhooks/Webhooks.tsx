// Webhook endpoints of the active organisation (OWNER, ADMIN): list, create (the signing
// secret is answered once: shown with a copy button, never again), pause and resume, a test
// event, and the delivery log with retry.

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, Route, Routes, useParams } from 'react-router';
import { unwrap } from '../../api/client.js';
import { errorText, fieldErrors } from '../../api/errors.js';
import { useActiveOrganisation } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Delivery, Organisation, Webhook, WebhookEvent } from '../../api/types.js';
import { formatDateTime } from '../../lib/time.js';
import { NoActive } from '../catalogue/Catalogue.js';
import { Field, FormError, LoadError, Loading, ShownOnce } from '../ui.js';
import { WEBHOOK_EVENTS } from './webhook-events.js';

export default function Webhooks() {
  const org = useActiveOrganisation();
  if (org.isPending) return <Loading />;
  if (org.isError) return <LoadError error={org.error} />;
  if (!org.active) return <NoActive />;
  return (
    <Routes>
      <Route index element={<WebhookList org={org.active} />} />
      <Route path=":webhookId" element={<WebhookDetail org={org.active} />} />
    </Routes>
  );
}

function WebhookList(props: { org: Organisation }) {
  const { org } = props;
  const hooks = useQuery({
    queryKey: queryKeys.webhooks(org.id),
    queryFn: () =>
      unwrap(authed.GET('/api/organisations/{id}/webhooks', { params: { path: { id: org.id } } })).then(
        (a) => a.items,
      ),
  });
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  return (
    <main className="page">
      <h1>Webhooks</h1>
      <p className="hint">
        {org.name} sends each chosen event to these addresses, signed with the endpoint's secret (Standard
        Webhooks).
      </p>
      {secret ? (
        <ShownOnce
          title={`Signing secret of ${secret.url}`}
          level={2}
          hint="Copy it now: it is shown this once. Your receiver verifies every delivery with it."
          value={secret.secret}
          valueId="webhook-secret"
          copyLabel="Copy secret"
          onDone={() => setSecret(null)}
        />
      ) : null}
      {hooks.isPending ? <Loading /> : null}
      {hooks.isError ? <LoadError error={hooks.error} /> : null}
      {hooks.data?.length === 0 ? <p className="empty">No endpoints yet.</p> : null}
      {hooks.data?.length ? (
        <ul className="record-list">
          {hooks.data.map((h) => (
            <li key={h.id}>
              <div>
                <strong className="url">{h.url}</strong>{' '}
                <span className="hint">
                  {h.description ? `${h.description} · ` : ''}
                  {h.events.length} {h.events.length === 1 ? 'event' : 'events'}
                </span>{' '}
                <StatusBadge status={h.status} />
              </div>
              <Link to={`/app/webhooks/${h.id}`} aria-label={`Deliveries and settings of ${h.url}`}>
                Deliveries
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
      {hooks.isError ? null : <NewWebhook org={org} onCreated={setSecret} />}
    </main>
  );
}

function StatusBadge(props: { status: Webhook['status'] }) {
  return <span className={`badge webhook-${props.status}`}>{props.status}</span>;
}

function NewWebhook(props: { org: Organisation; onCreated: (s: { url: string; secret: string }) => void }) {
  const { org, onCreated } = props;
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['reservation.created', 'reservation.cancelled']);
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        authed.POST('/api/organisations/{id}/webhooks', {
          params: { path: { id: org.id } },
          body: { url, events, description: description.trim() || null },
        }),
      ),
    onSuccess: (created) => {
      onCreated({ url: created.url, secret: created.secret });
      setUrl('');
      setDescription('');
      return queryClient.invalidateQueries({ queryKey: queryKeys.webhooks(org.id) });
    },
  });
  const errors = fieldErrors(create.error);
  const eventsError = errors.events ?? Object.entries(errors).find(([k]) => k.startsWith('events.'))?.[1];
  return (
    <section aria-labelledby="new-webhook">
      <h2 id="new-webhook">New endpoint</h2>
      <form
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Field
          name="url"
          label="Address (https)"
          type="url"
          value={url}
          error={errors.url}
          onChange={setUrl}
        />
        <Field
          name="description"
          label="Description"
          required={false}
          value={description}
          error={errors.description}
          onChange={setDescription}
        />
        <fieldset aria-describedby={eventsError ? 'e-events' : undefined}>
          <legend>Events</legend>
          <div className="event-grid">
            {WEBHOOK_EVENTS.map((event) => (
              <label key={event} className="event-choice">
                <input
                  type="checkbox"
                  checked={events.includes(event)}
                  onChange={(e) =>
                    setEvents((list) =>
                      e.target.checked ? [...list, event] : list.filter((x) => x !== event),
                    )
                  }
                />{' '}
                {event}
              </label>
            ))}
          </div>
          {eventsError ? (
            <p className="field-error" id="e-events">
              {eventsError}
            </p>
          ) : null}
        </fieldset>
        {create.isError ? <FormError error={create.error} shown={['url', 'description', 'events']} /> : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={create.isPending}>
            Add endpoint
          </button>
        </div>
      </form>
    </section>
  );
}

const deliveryWords: Record<Delivery['status'], string> = {
  pending: 'waiting to be sent',
  succeeded: 'delivered',
  failed: 'failed',
};

function WebhookDetail(props: { org: Organisation }) {
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
