// The catalogue's lists: the types (each with its booking page link to copy, and why it is not
// bookable when it is not, with the way to fix it) and the resources of the active organisation.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { unwrap } from '../../api/client.js';
import { errorText } from '../../api/errors.js';
import { useResources, useResourceTypes } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation, ResourceType } from '../../api/types.js';
import { formatPrice } from '../../lib/price.js';
import { isStaff } from '../organisations/roles.js';
import { CopyText } from '../shown-once.js';
import { LoadError, Loading } from '../ui.js';

export const modeWords: Record<ResourceType['bookingMode'], string> = {
  SINGLE_RESOURCE: 'customers pick a resource',
  POOL: 'any free resource',
  BOTH: 'a resource or any free one',
};

/** Where customers book the type: the organisation's booking page with the type chosen. */
export const bookingLinkOf = (slug: string, typeId: number) =>
  `${window.location.origin}/book/${encodeURIComponent(slug)}?type=${typeId}`;

export function TypeList(props: { org: Organisation }) {
  const { org } = props;
  // Whether a type is bookable follows the payment account too: read afresh on every visit.
  const types = useResourceTypes({ staleTime: 0 });
  return (
    <main className="page">
      <h1>Types</h1>
      <p className="hint">What {org.name} offers: each type has its rules, price and booking mode.</p>
      {org.slug ? null : (
        <p className="hint">
          {org.name} has no booking page address, so its types have no public link to share.
        </p>
      )}
      {types.isPending ? <Loading /> : null}
      {types.isError ? <LoadError error={types.error} /> : null}
      {types.data?.length === 0 ? <p className="empty">No types yet. Create the first one.</p> : null}
      {types.data?.length ? (
        <ul className="record-list">
          {types.data.map((t) => (
            <li key={t.id} data-type={t.id}>
              <div>
                <strong>{t.name}</strong>{' '}
                <span className="hint">
                  {t.minBookingDuration} min · {modeWords[t.bookingMode]}
                  {t.pricingEnabled && t.priceAmount != null && t.priceCurrency
                    ? ` · ${formatPrice(t.priceAmount, t.priceCurrency)}`
                    : ''}
                </span>
                {t.bookable ? null : <NotBookable org={org} type={t} />}
                {org.slug && t.bookable ? (
                  <CopyText
                    label="Booking link:"
                    value={bookingLinkOf(org.slug, t.id)}
                    valueId={`booking-link-${t.id}`}
                    copyLabel={`Copy the link to ${t.name}`}
                  />
                ) : null}
              </div>
              <RowLinks
                edit={`/app/types/${t.id}`}
                why={`/app/troubleshoot?type=${t.id}`}
                name={t.name}
                staff={isStaff(org.role)}
              />
            </li>
          ))}
        </ul>
      ) : null}
      {isStaff(org.role) ? (
        <p>
          <Link className="button primary" to="/app/types/new">
            New type
          </Link>
        </p>
      ) : null}
    </main>
  );
}

/** A row's edit link and, for staff, the way to its hour-by-hour troubleshooter. */
function RowLinks(props: { edit: string; why: string; name: string; staff: boolean }) {
  const { edit, why, name, staff } = props;
  return (
    <span className="row-links">
      {staff ? (
        <Link to={why} aria-label={`Why can’t ${name} be booked?`}>
          Why not bookable?
        </Link>
      ) : null}
      <Link to={edit} aria-label={`Edit ${name}`}>
        Edit
      </Link>
    </span>
  );
}

/** Why customers cannot book the type now, in words, with the way to fix it. */
function NotBookable(props: { org: Organisation; type: ResourceType }) {
  const { org, type } = props;
  const queryClient = useQueryClient();
  const turnOn = useMutation({
    mutationFn: () =>
      unwrap(
        authed.PATCH('/api/resource-types/{id}', {
          params: { path: { id: type.id } },
          body: { isActive: true },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.resourceTypes() }),
  });
  return (
    <div className="not-bookable" id={`not-bookable-${type.id}`}>
      {type.notBookableReason === 'PAYMENT_NOT_READY' ? (
        <p>
          Not bookable: {type.name} takes payment, and {org.name} cannot take payments yet.{' '}
          <Link to="/app/payments">Set up payments</Link>
        </p>
      ) : (
        <p>
          Not bookable: {type.name} is turned off.{' '}
          {isStaff(org.role) ? (
            <button
              type="button"
              className="link"
              disabled={turnOn.isPending}
              onClick={() => turnOn.mutate()}
            >
              Turn {type.name} on
            </button>
          ) : null}
        </p>
      )}
      {turnOn.isError ? (
        <p role="alert" className="error">
          {errorText(turnOn.error)}
        </p>
      ) : null}
    </div>
  );
}

export function ResourceList(props: { org: Organisation }) {
  const resources = useResources();
  const types = useResourceTypes();
  const typeName = (id: number) => types.data?.find((t) => t.id === id)?.name ?? '';
  return (
    <main className="page">
      <h1>Resources</h1>
      <p className="hint">The people, rooms or things of {props.org.name} that customers book.</p>
      {resources.isPending ? <Loading /> : null}
      {resources.isError ? <LoadError error={resources.error} /> : null}
      {resources.data?.length === 0 ? (
        <p className="empty">No resources yet. {types.data?.length === 0 ? 'Create a type first.' : ''}</p>
      ) : null}
      {resources.data?.length ? (
        <ul className="record-list">
          {resources.data.map((r) => (
            <li key={r.id}>
              <div>
                <strong>{r.name}</strong>{' '}
                <span className="hint">
                  {typeName(r.resourceTypeId)}
                  {r.capacity > 1 ? ` · capacity ${r.capacity}` : ''}
                </span>
              </div>
              <RowLinks
                edit={`/app/resources/${r.id}`}
                why={`/app/troubleshoot?resources=${r.id}`}
                name={r.name}
                staff={isStaff(props.org.role)}
              />
            </li>
          ))}
        </ul>
      ) : null}
      {isStaff(props.org.role) ? (
        <p>
          <Link className="button primary" to="/app/resources/new">
            New resource
          </Link>
        </p>
      ) : null}
    </main>
  );
}
