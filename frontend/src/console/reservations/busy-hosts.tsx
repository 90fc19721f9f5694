// Which resources of a refused collective booking or move are not free, and why (the
// HOST_UNAVAILABLE refusal's details, each naming its resource), by the resources' names.
import { ApiError } from '../../api/client.js';
import { useCatalogue } from './reservation-data.js';

export function BusyHosts(props: { error: unknown }) {
  const catalogue = useCatalogue();
  const { error } = props;
  if (!(error instanceof ApiError) || error.code !== 'HOST_UNAVAILABLE') return null;
  const busy = error.details.filter((d) => d.resourceId !== undefined);
  if (busy.length === 0) return null;
  return (
    <ul className="busy-hosts">
      {busy.map((d) => (
        <li key={`${d.resourceId}-${d.code}-${d.from}`}>
          {catalogue.resourceName(d.resourceId ?? null)}: {d.message}
        </li>
      ))}
    </ul>
  );
}
