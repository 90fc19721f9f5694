// The signed-in person's organisations and the active one: the types, resources and
// reservations routes act on the active organisation, so every screen names it.
import { useQuery } from '@tanstack/react-query';
import { unwrap } from '../api/client.js';
import { authed } from './session.js';

export const organisationsQuery = {
  queryKey: ['organisations'],
  queryFn: () => unwrap(authed.GET('/api/organisations')),
};

export function useActiveOrganisation() {
  const list = useQuery(organisationsQuery);
  return { ...list, active: list.data?.find((o) => o.isActiveOrganisation) ?? null };
}

/** Whether a role may change the catalogue and override booking rules (staff). */
export const isStaff = (role: string | undefined) =>
  role === 'OWNER' || role === 'ADMIN' || role === 'MANAGER';
