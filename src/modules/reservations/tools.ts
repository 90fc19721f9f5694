import { z } from 'zod';
import { entityId, page } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import {
  cancelReservationBody,
  createReservationBody,
  holdBody,
  listReservationsQuery,
  reservation,
} from './schemas.js';
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
      "Books a future time in your active organisation: resourceId for a concrete resource, resourceTypeId for a pool slot, as the type's booking mode allows. The customer answers the type's customerInfoFields; price and status come from the type. Fails with SLOT_UNAVAILABLE when the time is not free, and with BOOKING_RULE_VIOLATED when it breaks the type's bookingRules (notice, advance window, bookings per customer per day); an owner who is OWNER, ADMIN or MANAGER may pass overrideRules: true to book anyway, which is recorded.",
    catalogue: {
      description: 'Books a resource or a pool slot; price comes from the resource type.',
      risk: 'write',
      scopeKinds: [],
    },
    input: createReservationBody,
    output: reservation,
    run: (reservations: ReservationsService, actor, input) => reservations.create(actor, input, 'mcp'),
  }),
  defineTool({
    actionKey: 'reservations.hold',
    title: 'Hold a time',
    description:
      'Holds a future time in your active organisation while you check with your person: the create input plus holdSeconds (60..1800, default 600). Answers a held reservation whose time is kept until expiresAt, then freed by itself; confirm it with reservations_confirm or let it go with reservations_release. Fails with SLOT_UNAVAILABLE when the time is not free.',
    catalogue: {
      description: 'Holds a time for up to 30 minutes; it frees itself unless confirmed.',
      risk: 'write',
      scopeKinds: [],
    },
    input: holdBody,
    output: reservation,
    run: (reservations: ReservationsService, actor, input) => reservations.hold(actor, input, 'mcp'),
  }),
  defineTool({
    actionKey: 'reservations.cancel',
    title: 'Cancel reservation',
    description:
      "Cancels a reservation and frees its time at once; this cannot be undone. Allowed for its creator, or an OWNER, ADMIN or MANAGER. Within the type's cancelNoticeMinutes it fails with BOOKING_RULE_VIOLATED unless overrideRules: true is passed by an owner who is OWNER, ADMIN or MANAGER (recorded).",
    catalogue: {
      description: 'Cancels a reservation; this cannot be undone.',
      risk: 'destructive',
      scopeKinds: [],
    },
    input: z.strictObject({ ...reservationRef, ...cancelReservationBody.shape }),
    output: reservation,
    run: (reservations: ReservationsService, actor, { reservationId, ...input }) =>
      reservations.cancel(actor, reservationId, input),
  }),
  defineTool({
    actionKey: 'reservations.confirm',
    title: 'Confirm held time',
    description:
      'Confirms a held reservation before its expiresAt: it becomes confirmed and keeps its time. Fails with HOLD_EXPIRED after expiresAt (hold again), INVALID_TRANSITION when it is not held, PAYMENT_NOT_READY on a type that takes payment it cannot take yet. Allowed for its creator, or an OWNER, ADMIN or MANAGER.',
    catalogue: {
      description: 'Confirms a held reservation before it expires.',
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject(reservationRef),
    output: reservation,
    run: (reservations: ReservationsService, actor, { reservationId }) =>
      reservations.confirm(actor, reservationId),
  }),
  defineTool({
    actionKey: 'reservations.release',
    title: 'Release held time',
    description:
      'Lets a held reservation go before its expiresAt: it becomes cancelled and its time is free at once. Only a held reservation can be released (cancel a confirmed one with reservations_cancel). Allowed for its creator, or an OWNER, ADMIN or MANAGER.',
    catalogue: {
      description: 'Lets a held time go early; confirmed reservations are not affected.',
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject(reservationRef),
    output: reservation,
    run: (reservations: ReservationsService, actor, { reservationId }) =>
      reservations.release(actor, reservationId),
  }),
];
