// The organisations screen: those the person belongs to, which one is active (the one the
// other screens act on), and a new one.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { errorText, fieldErrors } from '../../api/errors.js';
import { useOrganisations } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation } from '../../api/types.js';
import { visitorZone, zoneChoices } from '../../lib/time.js';
import { submitted } from '../form-state.js';
import { Field, SubmitActions } from '../ui.js';

export default function Organisations() {
  return (
    <main className="page">
      <h1>Your organisations</h1>
      <OrganisationList />
      <NewOrganisation />
    </main>
  );
}

function OrganisationList() {
  const queryClient = useQueryClient();
  const list = useOrganisations();
  const makeActive = useMutation({
    mutationFn: (organisationId: number) =>
      unwrap(authed.PATCH('/api/organisations/active', { body: { organisationId } })),
    // Every other screen acts on the active organisation: all of it is stale now.
    onSuccess: () => queryClient.invalidateQueries(),
  });
  return (
    <>
      {list.isPending ? <p className="loading">Loading…</p> : null}
      {list.isError ? (
        <p role="alert" className="error">
          {errorText(list.error)}
        </p>
      ) : null}
      {list.data && list.data.length === 0 ? (
        <p className="empty">You do not belong to an organisation yet. Create one below.</p>
      ) : null}
      {list.data && list.data.length > 0 ? (
        <ul className="org-list">
          {list.data.map((org) => (
            <OrganisationRow key={org.id} org={org} onMakeActive={() => makeActive.mutate(org.id)} />
          ))}
        </ul>
      ) : null}
      {makeActive.isError ? (
        <p role="alert" className="error">
          {errorText(makeActive.error)}
        </p>
      ) : null}
    </>
  );
}

function OrganisationRow(props: { org: Organisation; onMakeActive: () => void }) {
  const { org } = props;
  return (
    <li>
      <div>
        <strong>{org.name}</strong> <span className="hint">{org.role.toLowerCase()}</span>
        {org.slug ? (
          <div className="hint">
            Booking page: <a href={`/book/${org.slug}`}>/book/{org.slug}</a>
          </div>
        ) : null}
      </div>
      {org.isActiveOrganisation ? (
        <span className="badge">Active</span>
      ) : (
        <button type="button" className="secondary" onClick={props.onMakeActive}>
          Make active
        </button>
      )}
    </li>
  );
}

function NewOrganisation() {
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ name: '', slug: '', timezone: visitorZone() });
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        authed.POST('/api/organisations', {
          body: { name: form.name, timezone: form.timezone, ...(form.slug ? { slug: form.slug } : {}) },
        }),
      ),
    onSuccess: () => {
      setForm({ name: '', slug: '', timezone: form.timezone });
      return queryClient.invalidateQueries({ queryKey: queryKeys.organisations() });
    },
  });
  const errors = fieldErrors(create.error);
  return (
    <>
      <h2>New organisation</h2>
      <form onSubmit={submitted(create.mutate)}>
        <Field
          name="name"
          label="Name"
          value={form.name}
          error={errors.name}
          onChange={(name) => setForm((f) => ({ ...f, name }))}
        />
        <Field
          name="slug"
          label="Booking page address (optional, e.g. salon-ute)"
          required={false}
          value={form.slug}
          error={errors.slug}
          onChange={(slug) => setForm((f) => ({ ...f, slug }))}
        />
        <ZoneSelect value={form.timezone} onChange={(timezone) => setForm((f) => ({ ...f, timezone }))} />
        {create.isError && !Object.keys(errors).length ? (
          <p role="alert" className="error">
            {errorText(create.error)}
          </p>
        ) : null}
        <SubmitActions pending={create.isPending} label="Create organisation" />
      </form>
    </>
  );
}

function ZoneSelect(props: { value: string; onChange: (zone: string) => void }) {
  return (
    <div className="field">
      <label htmlFor="f-timezone">Time zone</label>
      <select id="f-timezone" value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {zoneChoices(props.value).map((z) => (
          <option key={z} value={z}>
            {z.replaceAll('_', ' ')}
          </option>
        ))}
      </select>
    </div>
  );
}
