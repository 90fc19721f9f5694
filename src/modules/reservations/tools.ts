import { z } from 'zod';
import { entityId, page } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import { listReservationsQuery, reservation, reservationBody } from './schemas.js';
import type { ReservationsService } from './service.js';

const reservationRef = { reservationId: entityId };

/** MCP tools of reservations, in the owner's active organisation with the owner's role; bookings record source mcp. */
export const reservationTools = [
  defineTool({
    actionKey: 'reservations.list',
    title: 'List reservations',
    description:
      'Reservations of your active organisation by start time, filtered by resource, resource type, status or range; pass nextCursor as cursor for the next page.',
    catalogue: {
      description: 'Reservations of the active organisation, filtered, one page at a time.',
      risk: 'read',
      scopeKinds: [],
    },
    input: listReservationsQuery,
    output: page(reservation),
    run: (reservations: ReservationsService, actor, query) => reservations.list(actor, query),
  }),
  defineTool({
    actionKey: 'reservations.get',
    title: 'Read reservation',
    description: 'One reservation of your active organisation.',
    catalogue: {
      description: 'One reservation of the active organisation.',
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject(reservationRef),
    output: reservation,
    run: (reservations: ReservationsService, actor, { reservationId }) =>
      reservations.get(actor, reservationId),
  }),
  defineTool({
    actionKey: 'reservations.create',
    title: 'Create reservation',
    description:
      "Books a future time in your active organisation: resourceId for a concrete resource, resourceTypeId for a pool slot, as the type's booking mode allows. The customer answers the type's customerInfoFields; price and status come from the type. Fails with SLOT_UNAVAILABLE when the time is not free.",
    catalogue: {
      description: 'Books a resource or a pool slot; price comes from the resource type.',
      risk: 'write',
      scopeKinds: [],
    },
    input: reservationBody,
    output: reservation,
    run: (reservations: ReservationsService, actor, input) => reservations.create(actor, input, 'mcp'),
  }),
  defineTool({
    actionKey: 'reservations.cancel',
    title: 'Cancel reservation',
    description:
      'Cancels a reservation and frees its time at once; this cannot be undone. Allowed for its creator, or an OWNER, ADMIN or MANAGER.',
    catalogue: {
      description: 'Cancels a reservation; this cannot be undone.',
      risk: 'destructive',
      scopeKinds: [],
    },
    input: z.strictObject(reservationRef),
    output: reservation,
    run: (reservations: ReservationsService, actor, { reservationId }) =>
      reservations.cancel(actor, reservationId),
  }),
];
