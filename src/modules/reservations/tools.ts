import { z } from 'zod';
import { entityId, page } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import {
  dryRunArgument,
  dryRunFailure,
  dryRunSuccess,
  reservationOrDryRun,
  seriesDryRunSuccess,
} from './dry-run-schemas.js';
import {
  attendanceBody,
  cancelReservationBody,
  cancelSeriesBody,
  createHoldBody,
  createReservationBody,
  listReservationsQuery,
  rescheduleBody,
  reservation,
  reservationSeries,
  seriesBooking,
} from './schemas.js';
import type { ReservationsService } from './service.js';

const reservationRef = { reservationId: entityId };
/** What the writing tools say of a refusal's alternatives and of a dry run. */
const tryingIt =
  ' A SLOT_UNAVAILABLE or BOOKING_RULE_VIOLATED error carries error.alternatives: up to 5 bookable {startTime, endTime, resourceId} of the same length nearest the requested start (resourceId: the resource it is free on, the one a pool booking of it gets). Pass dryRun: true to check without writing: the answer is then {wouldSucceed: true, reservation} (id null) or {wouldSucceed: false, error}.';

/** MCP tools of reservations, in the owner's active organisation with the owner's role; bookings record source mcp. */
export const reservationTools = [
  defineTool({
    actionKey: 'reservations.list',
    title: 'List reservations',
    description:
      "Reservations of your active organisation by start time, filtered by resource, resource type, status (any of several), range, or q (the customer's name or email, or the reference, contains it); pass nextCursor as cursor for the next page.",
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
      "Books a future time in your active organisation: resourceId for a concrete resource, resourceTypeId for a pool slot, as the type's booking mode allows. The customer answers the type's customerInfoFields; price and status come from the type. On a type with paymentRequired it is pending_payment until its customer pays at payment.checkoutUrl (amounts in minor units) before expiresAt, else it expires; PAYMENT_NOT_READY (nothing booked) when the organisation's payment account cannot take charges. Fails with SLOT_UNAVAILABLE when the time is not free, and with BOOKING_RULE_VIOLATED when it breaks the type's bookingRules (notice, advance window, bookings per customer per day); an owner who is OWNER, ADMIN or MANAGER may pass overrideRules: true to book anyway, which is recorded. With recurrence (RFC 5545 lines, e.g. [\"RRULE:FREQ=WEEKLY;COUNT=10\"]; types with recurringEnabled, else RECURRENCE_NOT_ENABLED) it books a series from startTime/endTime as the first occurrence, at the same local time in the organisation's zone, every occurrence or none: the answer is {seriesId, reservations}; a SLOT_UNAVAILABLE error then carries error.conflicts [{startTime, endTime, alternatives}] naming every occurrence that does not fit. COUNT or UNTIL is required; at most 104 occurrences within 2 years." +
      tryingIt,
    catalogue: {
      description:
        'Books a resource or a pool slot, or a recurring series; price comes from the resource type.',
      risk: 'write',
      scopeKinds: [],
    },
    input: createReservationBody.extend({ dryRun: dryRunArgument }),
    output: z.union([
      reservation,
      dryRunSuccess(reservation),
      dryRunFailure,
      seriesBooking,
      seriesDryRunSuccess,
    ]),
    idempotent: true,
    run: (reservations: ReservationsService, actor, { dryRun, ...input }) =>
      dryRun ? reservations.dryRunCreate(actor, input, 'mcp') : reservations.createAny(actor, input, 'mcp'),
  }),
  defineTool({
    actionKey: 'reservations.hold',
    title: 'Hold a time',
    description:
      'Holds a future time in your active organisation while you check with your person: the create input plus holdSeconds (60..1800, default 600). Answers a held reservation whose time is kept until expiresAt, then freed by itself; confirm it with reservations_confirm or let it go with reservations_release. Fails with SLOT_UNAVAILABLE when the time is not free.' +
      tryingIt,
    catalogue: {
      description: 'Holds a time for up to 30 minutes; it frees itself unless confirmed.',
      risk: 'write',
      scopeKinds: [],
    },
    input: createHoldBody.extend({ dryRun: dryRunArgument }),
    output: reservationOrDryRun,
    idempotent: true,
    run: (reservations: ReservationsService, actor, { dryRun, ...input }) =>
      dryRun ? reservations.dryRunHold(actor, input, 'mcp') : reservations.hold(actor, input, 'mcp'),
  }),
  defineTool({
    actionKey: 'reservations.reschedule',
    title: 'Reschedule reservation',
    description: `Moves a held, pending_payment or confirmed reservation of your active organisation to another future time, keeping its id, status, expiresAt and payment: on its resource (or anywhere in the pool of a POOL type), or on resourceId where the type's booking mode takes one. Fails with SLOT_UNAVAILABLE when the new time is not free (the reservation keeps its time), BOOKING_RULE_VIOLATED when it breaks the type's bookingRules (rescheduleNoticeMinutes before the current start, notice, advance window, bookings per customer per day; an owner who is OWNER, ADMIN or MANAGER may pass overrideRules: true, which is recorded), INVALID_TRANSITION in any other status. Allowed for its creator, or an OWNER, ADMIN or MANAGER.${tryingIt}`,
    catalogue: {
      description: 'Moves a reservation or hold to another time; a time that does not fit changes nothing.',
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject({ ...reservationRef, ...rescheduleBody.shape, dryRun: dryRunArgument }),
    output: reservationOrDryRun,
    idempotent: true,
    run: (reservations: ReservationsService, actor, { reservationId, dryRun, ...input }) =>
      dryRun
        ? reservations.dryRunReschedule(actor, reservationId, input)
        : reservations.reschedule(actor, reservationId, input),
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
    idempotent: true,
    run: (reservations: ReservationsService, actor, { reservationId, ...input }) =>
      reservations.cancel(actor, reservationId, input),
  }),
  defineTool({
    actionKey: 'reservations.confirm',
    title: 'Confirm held time',
    description:
      "Confirms a held reservation before its expiresAt: it becomes confirmed and keeps its time. Fails with HOLD_EXPIRED after expiresAt (hold again), INVALID_TRANSITION when it is not held. On a type with paymentRequired it becomes pending_payment instead, with payment.checkoutUrl where its customer pays before the new expiresAt; PAYMENT_NOT_READY (the hold stays) when the organisation's payment account cannot take charges. Allowed for its creator, or an OWNER, ADMIN or MANAGER.",
    catalogue: {
      description: 'Confirms a held reservation before it expires.',
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject(reservationRef),
    output: reservation,
    idempotent: true,
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
    idempotent: true,
    run: (reservations: ReservationsService, actor, { reservationId }) =>
      reservations.release(actor, reservationId),
  }),
  defineTool({
    actionKey: 'reservations.attendance',
    title: 'Mark attendance',
    description:
      'Marks whether the customer of a confirmed reservation of your active organisation came, once it has started: status attended or no_show (a mark may be changed to the other). Fails with INVALID_TRANSITION before the start or when the reservation is not confirmed (cancelled, held, expired). Allowed for an owner who is OWNER, ADMIN or MANAGER.',
    catalogue: {
      description: "Marks a started reservation's customer as attended or no-show.",
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject({ ...reservationRef, ...attendanceBody.shape }),
    output: reservation,
    run: (reservations: ReservationsService, actor, { reservationId, ...input }) =>
      reservations.markAttendance(actor, reservationId, input),
  }),
  defineTool({
    actionKey: 'reservations.series.get',
    title: 'Read reservation series',
    description:
      'A recurring series of your active organisation: its RFC 5545 recurrence lines and every occurrence (cancelled ones too) by start time. Cancel or reschedule one occurrence with reservations_cancel or reservations_reschedule on its id.',
    catalogue: {
      description: 'One recurring series with its occurrences.',
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject({ seriesId: entityId }),
    output: reservationSeries,
    run: (reservations: ReservationsService, actor, { seriesId }) => reservations.getSeries(actor, seriesId),
  }),
  defineTool({
    actionKey: 'reservations.series.cancel',
    title: 'Cancel reservation series',
    description:
      "Cancels every occurrence of a recurring series that has not started yet (occurrences already past stay as they are) and answers the series. Within the type's cancelNoticeMinutes of the next occurrence it fails with BOOKING_RULE_VIOLATED unless an OWNER, ADMIN or MANAGER passes overrideRules: true. Allowed for the series' creator, or an OWNER, ADMIN or MANAGER.",
    catalogue: {
      description: 'Cancels the remaining occurrences of a series; this cannot be undone.',
      risk: 'destructive',
      scopeKinds: [],
    },
    input: z.strictObject({ seriesId: entityId, ...cancelSeriesBody.shape }),
    output: reservationSeries,
    idempotent: true,
    run: (reservations: ReservationsService, actor, { seriesId, ...input }) =>
      reservations.cancelSeries(actor, seriesId, input),
  }),
];
