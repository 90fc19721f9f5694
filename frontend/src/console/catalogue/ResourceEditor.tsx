// A resource of the active organisation, new or edited: its type, capacity, manager and busy-time
// blocking, and once it exists its own hours. The API's refusals land on the form's fields.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { unwrap } from '../../api/client.js';
import { fieldErrors } from '../../api/errors.js';
import { useMembers, useResources, useResourceTypes } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation, Resource, ResourceBody, ResourceType } from '../../api/types.js';
import { submitted, useFormState } from '../form-state.js';
import { ResourceHours } from '../schedule/schedule-editor.js';
import { Check, Field, FormError, LoadError, Loading, Select, SubmitActions } from '../ui.js';
import { numberOf } from './type-form-data.js';

/** A member who can manage a resource. */
interface Person {
  id: number;
  name: string;
}

export function ResourceEditor(props: { org: Organisation }) {
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
  const people: Person[] = (members.data ?? []).flatMap((m) =>
    m.status === 'active' ? [{ id: m.userId, name: m.name }] : [],
  );
  return (
    <ResourceFormScreen key={existing?.id ?? 'new'} existing={existing} types={types.data} people={people} />
  );
}

interface ResourceForm {
  name: string;
  description: string;
  resourceTypeId: string;
  capacity: string;
  managedById: string;
  blockOnManagerCalendars: boolean;
  assignmentWeight: string;
  /** Empty: no cap. */
  maxBookingsPerDay: string;
}

const SHOWN_FIELDS = [
  'name',
  'description',
  'resourceTypeId',
  'capacity',
  'managedById',
  'blockOnManagerCalendars',
  'assignmentWeight',
  'maxBookingsPerDay',
];

/** The resource as the API takes it, the manager's calendar blocking only when it changes. */
function resourceBody(form: ResourceForm, existing: Resource | undefined): ResourceBody {
  const managedById = form.managedById ? Number(form.managedById) : null;
  // What the service keeps when the flag is not sent: a new manager (or none) starts with it off.
  const keptBlock =
    managedById === (existing?.managedById ?? null) && (existing?.blockOnManagerCalendars ?? false);
  return {
    name: form.name,
    description: form.description.trim() || null,
    resourceTypeId: Number(form.resourceTypeId),
    capacity: numberOf(form.capacity),
    managedById,
    assignmentWeight: numberOf(form.assignmentWeight),
    maxBookingsPerDay: form.maxBookingsPerDay.trim() === '' ? null : numberOf(form.maxBookingsPerDay),
    // Sent only to change it: only the manager themself may turn it on.
    ...(form.blockOnManagerCalendars !== keptBlock
      ? { blockOnManagerCalendars: form.blockOnManagerCalendars }
      : {}),
  } as ResourceBody;
}

/** Creates the resource or saves the edit; then back to the list. */
function useSaveResource(existing: Resource | undefined, form: ResourceForm) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: () =>
      existing
        ? unwrap(
            authed.PATCH('/api/resources/{id}', {
              params: { path: { id: existing.id } },
              body: resourceBody(form, existing),
            }),
          )
        : unwrap(authed.POST('/api/resources', { body: resourceBody(form, existing) })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.resources() });
      navigate('/app/resources');
    },
  });
}

function ResourceFormScreen(props: {
  existing: Resource | undefined;
  types: ResourceType[];
  people: Person[];
}) {
  const { existing, types } = props;
  const { values: form, bind } = useFormState<ResourceForm>({
    name: existing?.name ?? '',
    description: existing?.description ?? '',
    resourceTypeId: String(existing?.resourceTypeId ?? types[0]!.id),
    capacity: String(existing?.capacity ?? 1),
    managedById: existing?.managedById != null ? String(existing.managedById) : '',
    blockOnManagerCalendars: existing?.blockOnManagerCalendars ?? false,
    assignmentWeight: String(existing?.assignmentWeight ?? 1),
    maxBookingsPerDay: existing?.maxBookingsPerDay != null ? String(existing.maxBookingsPerDay) : '',
  });
  const save = useSaveResource(existing, form);
  return (
    <main className="page">
      <p>
        <Link to="/app/resources">All resources</Link>
      </p>
      <h1>{existing ? `Edit ${existing.name}` : 'New resource'}</h1>
      <form noValidate onSubmit={submitted(save.mutate)}>
        <ResourceFields field={bind(fieldErrors(save.error))} types={types} people={props.people} />
        {save.isError ? <FormError error={save.error} shown={SHOWN_FIELDS} /> : null}
        <SubmitActions pending={save.isPending} label={existing ? 'Save resource' : 'Create resource'} />
      </form>
      {existing && existing.parentResourceId === null ? (
        <ResourceHours resource={existing} types={types} />
      ) : null}
    </main>
  );
}

type Bound = ReturnType<ReturnType<typeof useFormState<ResourceForm>>['bind']>;

function ResourceFields(props: { field: Bound; types: ResourceType[]; people: Person[] }) {
  const { field, types, people } = props;
  return (
    <>
      <Field label="Name" {...field.text('name')} />
      <Field label="Description" required={false} {...field.text('description')} />
      <Select label="Type" {...field.text('resourceTypeId')}>
        {types.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </Select>
      <Field label="Capacity (bookings at the same time)" type="number" min={1} {...field.text('capacity')} />
      <Select label="Manager" {...field.text('managedById')}>
        <option value="">Nobody</option>
        {people.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </Select>
      <Check
        label="Unavailable while the manager is busy in their calendars (only the manager can turn this on)"
        {...field.check('blockOnManagerCalendars')}
      />
      <PoolFields field={field} />
    </>
  );
}

/** How a pool shares its bookings out: the resource's weight (round robin) and its daily cap. */
function PoolFields({ field }: { field: Bound }) {
  return (
    <div className="grid-2">
      <Field
        label="Weight in a round robin pool (1 to 100)"
        hint="A resource of weight 2 takes twice the share of one of weight 1."
        type="number"
        min={1}
        {...field.text('assignmentWeight')}
      />
      <Field
        label="Most bookings a day (empty: no limit)"
        type="number"
        min={1}
        required={false}
        {...field.text('maxBookingsPerDay')}
      />
    </div>
  );
}
