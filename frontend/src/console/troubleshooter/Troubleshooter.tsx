// Why can't this be booked? A type's resources or up to three chosen ones, and a day: each hour
// of it in the organisation's time zone, free or why not (the explain routes, hour-grid.tsx).
// What is looked at lives in the address (?type=3&day=… or ?resources=4,5&day=…), so the
// types' and resources' lists link straight to it.
import { useSearchParams } from 'react-router';
import type { ExplainTarget } from '../../api/explain-hooks.js';
import { useActiveOrganisation, useResources, useResourceTypes } from '../../api/hooks.js';
import type { Organisation, Resource, ResourceType } from '../../api/types.js';
import { NoActive } from '../catalogue/Catalogue.js';
import { LoadError, Loading } from '../ui.js';
import { HourGrid } from './hour-grid.js';
import { hoursOf } from './hours.js';
import { MAX_RESOURCES, paramsOf, pickOf } from './pick.js';
import { PickFields } from './pick-fields.js';
import './troubleshooter.css';

export default function Troubleshooter() {
  const org = useActiveOrganisation();
  const types = useResourceTypes();
  const resources = useResources();
  if (org.isPending || types.isPending || resources.isPending) return <Loading />;
  const error = org.error ?? types.error ?? resources.error;
  if (error) return <LoadError error={error} />;
  if (!org.active) return <NoActive />;
  return <TroubleshooterScreen org={org.active} types={types.data ?? []} resources={resources.data ?? []} />;
}

function TroubleshooterScreen(props: { org: Organisation; types: ResourceType[]; resources: Resource[] }) {
  const { org, types, resources } = props;
  const zone = org.timezone;
  const [params, setParams] = useSearchParams();
  const pick = pickOf(params, zone, types);
  const targets: ExplainTarget[] =
    pick.look === 'type'
      ? pick.typeId !== null
        ? [{ kind: 'type', id: pick.typeId }]
        : []
      : pick.resourceIds.map((id) => ({ kind: 'resource', id }));
  const hours = hoursOf(pick.day, zone);
  const resourceName = (id: number) => resources.find((r) => r.id === id)?.name ?? `Resource ${id}`;
  const what =
    pick.look === 'type'
      ? `Every resource of ${types.find((t) => t.id === pick.typeId)?.name ?? 'the type'}`
      : 'The chosen resources';
  return (
    <main className="page">
      <h1>Why can’t this be booked?</h1>
      <p className="hint">
        Each hour of a day, free or the reason it cannot be booked, as the booking page judges it now. Times
        in {zone.replaceAll('_', ' ')}.
      </p>
      <PickFields
        pick={pick}
        types={types}
        resources={resources}
        onChange={(next) => setParams(paramsOf(next), { replace: true })}
      />
      {targets.length === 0 || hours.length === 0 ? (
        <p className="empty">Choose a type or up to {MAX_RESOURCES} resources, and a day.</p>
      ) : (
        <HourGrid
          targets={targets}
          hours={hours}
          zone={zone}
          caption={`${what} on ${pick.day}`}
          resourceName={resourceName}
        />
      )}
    </main>
  );
}
