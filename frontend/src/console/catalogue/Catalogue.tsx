// Types (rules, price, flags) and resources (capacity, manager, busy-time blocking) of the
// active organisation: create and edit (the lists: catalogue-lists.tsx). The API checks
// everything; its refusals land on the form's fields by their path (`body.bookingRules.minNoticeMinutes`).

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, Route, Routes, useNavigate, useParams } from 'react-router';
import { unwrap } from '../../api/client.js';
import { fieldErrors } from '../../api/errors.js';
import { useActiveOrganisation, useMembers, useResources, useResourceTypes } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation, Resource, ResourceBody, ResourceType } from '../../api/types.js';
import { organisationCurrency } from '../organisations/currency.js';
import { ResourceHours, TypeSchedule } from '../schedule/schedule-editor.js';
import { Check, Field, FormError, LoadError, Loading, Select } from '../ui.js';
import { modeWords, ResourceList, TypeList } from './catalogue-lists.js';
import { numberOf, RULES, type TypeForm, typeBody, typeForm } from './type-form-data.js';
import { questionDrafts, questionFieldNames, questionsBody, TypeQuestions } from './type-questions.js';

export default function Catalogue(props: { screen: 'types' | 'resources' }) {
  const org = useActiveOrganisation();
  if (org.isPending) return <Loading />;
  if (org.isError) return <LoadError error={org.error} />;
  if (!org.active) return <NoActive />;
  return props.screen === 'types' ? (
    <Routes>
      <Route index element={<TypeList org={org.active} />} />
      <Route path="new" element={<TypeEditor org={org.active} />} />
      <Route path=":id" element={<TypeEditor org={org.active} />} />
    </Routes>
  ) : (
    <Routes>
      <Route index element={<ResourceList org={org.active} />} />
      <Route path="new" element={<ResourceEditor org={org.active} />} />
      <Route path=":id" element={<ResourceEditor org={org.active} />} />
    </Routes>
  );
}

export function NoActive() {
  return (
    <main className="page">
      <p className="empty">
        Choose an active organisation first: <Link to="/app">your organisations</Link>.
      </p>
    </main>
  );
}

function TypeEditor(props: { org: Organisation }) {
  const { id } = useParams();
  const typeId = id ? Number(id) : null;
  const types = useResourceTypes();
  if (typeId !== null && types.isPending) return <Loading />;
  if (typeId !== null && types.isError) return <LoadError error={types.error} />;
  const existing = typeId !== null ? types.data?.find((t) => t.id === typeId) : undefined;
  if (typeId !== null && !existing)
    return (
      <main className="page">
        <p className="empty">
          This type does not exist (any more). <Link to="/app/types">All types</Link>
        </p>
      </main>
    );
  return <TypeFormScreen key={existing?.id ?? 'new'} org={props.org} existing={existing} />;
}

function TypeFormScreen(props: { org: Organisation; existing: ResourceType | undefined }) {
  const { org, existing } = props;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [form, setForm] = useState(() => typeForm(existing, org));
  const [questions, setQuestions] = useState(() => questionDrafts(existing?.questions));
  const set =
    <K extends keyof TypeForm>(key: K) =>
    (value: TypeForm[K]) =>
      setForm((f) => ({ ...f, [key]: value }));
  const save = useMutation({
    mutationFn: () =>
      existing
        ? unwrap(
            authed.PATCH('/api/resource-types/{id}', {
              params: { path: { id: existing.id } },
              body: { ...typeBody(form), questions: questionsBody(questions) },
            }),
          )
        : unwrap(
            authed.POST('/api/resource-types', {
              body: { ...typeBody(form), questions: questionsBody(questions) },
            }),
          ),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.resourceTypes() });
      navigate('/app/types');
    },
  });
  const errors = fieldErrors(save.error);
  const shown = [
    'name',
    'description',
    'minBookingDuration',
    'bufferTime',
    'bookingMode',
    'customerInfoFields',
    'priceAmount',
    'priceCurrency',
    ...RULES.map(([k]) => `bookingRules.${k}`),
    ...questionFieldNames(questions),
  ];
  return (
    <main className="page">
      <p>
        <Link to="/app/types">All types</Link>
      </p>
      <h1>{existing ? `Edit ${existing.name}` : 'New type'}</h1>
      <form
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <Field name="name" label="Name" value={form.name} error={errors.name} onChange={set('name')} />
        <Field
          name="description"
          label="Description"
          required={false}
          value={form.description}
          error={errors.description}
          onChange={set('description')}
        />
        <div className="grid-2">
          <Field
            name="minBookingDuration"
            label="Length (minutes)"
            type="number"
            min={1}
            value={form.minBookingDuration}
            error={errors.minBookingDuration}
            onChange={set('minBookingDuration')}
          />
          <Field
            name="bufferTime"
            label="Buffer around each booking (minutes)"
            type="number"
            min={0}
            value={form.bufferTime}
            error={errors.bufferTime}
            onChange={set('bufferTime')}
          />
        </div>
        <Select
          name="bookingMode"
          label="How customers book"
          value={form.bookingMode}
          error={errors.bookingMode}
          onChange={(v) => set('bookingMode')(v as TypeForm['bookingMode'])}
        >
          {Object.entries(modeWords).map(([mode, words]) => (
            <option key={mode} value={mode}>
              {words[0]!.toUpperCase() + words.slice(1)}
            </option>
          ))}
        </Select>
        <Field
          name="customerInfoFields"
          label="Extra customer fields (comma separated, e.g. phone, licencePlate)"
          required={false}
          value={form.customerInfoFields}
          error={
            errors.customerInfoFields ??
            Object.entries(errors).find(([k]) => k.startsWith('customerInfoFields.'))?.[1]
          }
          onChange={set('customerInfoFields')}
        />
        <TypeQuestions drafts={questions} errors={errors} onChange={setQuestions} />
        <fieldset>
          <legend>Booking rules (empty: no rule)</legend>
          <div className="grid-2">
            {RULES.map(([key, label]) => (
              <Field
                key={key}
                name={`bookingRules.${key}`}
                label={label}
                type="number"
                min={0}
                required={false}
                value={form.rules[key]}
                error={errors[`bookingRules.${key}`]}
                onChange={(v) => setForm((f) => ({ ...f, rules: { ...f.rules, [key]: v } }))}
              />
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend>Price</legend>
          <Check
            name="pricingEnabled"
            label="This type has a price"
            checked={form.pricingEnabled}
            error={errors.pricingEnabled}
            onChange={set('pricingEnabled')}
          />
          {form.pricingEnabled ? (
            <>
              <div className="grid-2">
                <Field
                  name="priceAmount"
                  label="Price"
                  type="number"
                  min={0}
                  step="0.01"
                  value={form.price}
                  error={errors.priceAmount}
                  onChange={set('price')}
                />
                <Field
                  name="priceCurrency"
                  label="Currency (e.g. EUR)"
                  value={form.priceCurrency}
                  hint={`${org.name} counts in ${organisationCurrency(org)} (Payments): agent policies too.`}
                  error={errors.priceCurrency}
                  onChange={(v) => set('priceCurrency')(v.toUpperCase())}
                />
              </div>
              <Check
                name="paymentRequired"
                label="Customers pay when they book"
                checked={form.paymentRequired}
                error={errors.paymentRequired}
                onChange={set('paymentRequired')}
              />
            </>
          ) : null}
        </fieldset>
        <fieldset>
          <legend>Options</legend>
          <Check
            name="waitlistEnabled"
            label="Customers may join a waitlist when it is full"
            checked={form.waitlistEnabled}
            error={errors.waitlistEnabled}
            onChange={set('waitlistEnabled')}
          />
          <Check
            name="recurringEnabled"
            label="Customers may book a series"
            checked={form.recurringEnabled}
            error={errors.recurringEnabled}
            onChange={set('recurringEnabled')}
          />
        </fieldset>
        {save.isError ? <FormError error={save.error} shown={shown} /> : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            {existing ? 'Save type' : 'Create type'}
          </button>
        </div>
      </form>
      {existing ? (
        <TypeSchedule org={org} type={existing} />
      ) : (
        <p className="hint">Opening hours and dates with other hours are set once the type exists.</p>
      )}
    </main>
  );
}

function ResourceEditor(props: { org: Organisation }) {
  const { id } = useParams();
  const resourceId = id ? Number(id) : null;
  const resources = useResources();
  const types = useResourceTypes();
  const members = useMembers(props.org.id);
  if (types.isPending || (resourceId !== null && resources.isPending)) return <Loading />;
  if (types.isError) return <LoadError error={types.error} />;
  const existing = resourceId !== null ? resources.data?.find((r) => r.id === resourceId) : undefined;
  if (resourceId !== null && !existing)
    return (
      <main className="page">
        <p className="empty">
          This resource does not exist (any more). <Link to="/app/resources">All resources</Link>
        </p>
      </main>
    );
  if (types.data.length === 0)
    return (
      <main className="page">
        <p className="empty">
          A resource belongs to a type: <Link to="/app/types/new">create a type</Link> first.
        </p>
      </main>
    );
  const people = (members.data ?? []).flatMap((m) =>
    m.status === 'active' ? [{ id: m.userId, name: m.name }] : [],
  );
  return (
    <ResourceFormScreen key={existing?.id ?? 'new'} existing={existing} types={types.data} people={people} />
  );
}

function ResourceFormScreen(props: {
  existing: Resource | undefined;
  types: ResourceType[];
  people: { id: number; name: string }[];
}) {
  const { existing, types, people } = props;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [form, setForm] = useState({
    name: existing?.name ?? '',
    description: existing?.description ?? '',
    resourceTypeId: String(existing?.resourceTypeId ?? types[0]!.id),
    capacity: String(existing?.capacity ?? 1),
    managedById: existing?.managedById != null ? String(existing.managedById) : '',
    blockOnManagerCalendars: existing?.blockOnManagerCalendars ?? false,
  });
  const set = (key: keyof typeof form) => (value: string | boolean) =>
    setForm((f) => ({ ...f, [key]: value }));
  const managedById = form.managedById ? Number(form.managedById) : null;
  // What the service keeps when the flag is not sent: a new manager (or none) starts with it off.
  const keptBlock =
    managedById === (existing?.managedById ?? null) && (existing?.blockOnManagerCalendars ?? false);
  const body = () =>
    ({
      name: form.name,
      description: form.description.trim() || null,
      resourceTypeId: Number(form.resourceTypeId),
      capacity: numberOf(form.capacity),
      managedById,
      // Sent only to change it: only the manager themself may turn it on.
      ...(form.blockOnManagerCalendars !== keptBlock
        ? { blockOnManagerCalendars: form.blockOnManagerCalendars }
        : {}),
    }) as ResourceBody;
  const save = useMutation({
    mutationFn: () =>
      existing
        ? unwrap(authed.PATCH('/api/resources/{id}', { params: { path: { id: existing.id } }, body: body() }))
        : unwrap(authed.POST('/api/resources', { body: body() })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.resources() });
      navigate('/app/resources');
    },
  });
  const errors = fieldErrors(save.error);
  return (
    <main className="page">
      <p>
        <Link to="/app/resources">All resources</Link>
      </p>
      <h1>{existing ? `Edit ${existing.name}` : 'New resource'}</h1>
      <form
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <Field name="name" label="Name" value={form.name} error={errors.name} onChange={set('name')} />
        <Field
          name="description"
          label="Description"
          required={false}
          value={form.description}
          error={errors.description}
          onChange={set('description')}
        />
        <Select
          name="resourceTypeId"
          label="Type"
          value={form.resourceTypeId}
          error={errors.resourceTypeId}
          onChange={set('resourceTypeId')}
        >
          {types.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </Select>
        <Field
          name="capacity"
          label="Capacity (bookings at the same time)"
          type="number"
          min={1}
          value={form.capacity}
          error={errors.capacity}
          onChange={set('capacity')}
        />
        <Select
          name="managedById"
          label="Manager"
          value={form.managedById}
          error={errors.managedById}
          onChange={set('managedById')}
        >
          <option value="">Nobody</option>
          {people.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </Select>
        <Check
          name="blockOnManagerCalendars"
          label="Unavailable while the manager is busy in their calendars (only the manager can turn this on)"
          checked={form.blockOnManagerCalendars}
          error={errors.blockOnManagerCalendars}
          onChange={set('blockOnManagerCalendars')}
        />
        {save.isError ? (
          <FormError
            error={save.error}
            shown={[
              'name',
              'description',
              'resourceTypeId',
              'capacity',
              'managedById',
              'blockOnManagerCalendars',
            ]}
          />
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            {existing ? 'Save resource' : 'Create resource'}
          </button>
        </div>
      </form>
      {existing && existing.parentResourceId === null ? (
        <ResourceHours resource={existing} types={types} />
      ) : null}
    </main>
  );
}
