// The active organisation's webhook endpoints: each with its status, and a new one (its signing
// secret is answered once: shown with a copy button, never again).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { unwrap } from '../../api/client.js';
import { fieldErrors } from '../../api/errors.js';
import { useWebhooks } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation, Webhook, WebhookEvent } from '../../api/types.js';
import { submitted } from '../form-state.js';
import { ShownOnce } from '../shown-once.js';
import { Field, FormError, LoadError, Loading, SubmitActions } from '../ui.js';
import { WEBHOOK_EVENTS } from './webhook-events.js';

export function WebhookList(props: { org: Organisation }) {
  const { org } = props;
  const hooks = useWebhooks(org.id);
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

export function StatusBadge(props: { status: Webhook['status'] }) {
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
      <form noValidate onSubmit={submitted(create.mutate)}>
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
        <EventsFieldset events={events} error={eventsError} onChange={setEvents} />
        {create.isError ? <FormError error={create.error} shown={['url', 'description', 'events']} /> : null}
        <SubmitActions pending={create.isPending} label="Add endpoint" />
      </form>
    </section>
  );
}

/** The events an endpoint receives, each a checkbox; `error`: the API's refusal of the list. */
function EventsFieldset(props: {
  events: WebhookEvent[];
  error: string | undefined;
  onChange: (change: (events: WebhookEvent[]) => WebhookEvent[]) => void;
}) {
  const { events, error, onChange } = props;
  return (
    <fieldset aria-describedby={error ? 'e-events' : undefined}>
      <legend>Events</legend>
      <div className="event-grid">
        {WEBHOOK_EVENTS.map((event) => (
          <label key={event} className="event-choice">
            <input
              type="checkbox"
              checked={events.includes(event)}
              onChange={(e) =>
                onChange((list) => (e.target.checked ? [...list, event] : list.filter((x) => x !== event)))
              }
            />{' '}
            {event}
          </label>
        ))}
      </div>
      {error ? (
        <p className="field-error" id="e-events">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
