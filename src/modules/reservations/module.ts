import { sweep } from '../../jobs/declarations.js';
import { defineModule } from '../../module.js';
import { publicHoldClients } from './migrations/0049_public_hold_clients.js';
import { reservationReferences } from './migrations/0056_reservation_references.js';
import { sealedManageTokens } from './migrations/0057_sealed_manage_tokens.js';
import { poolAssignments } from './migrations/0066_pool_assignments.js';
import { collectiveReservations } from './migrations/0067_collective_reservations.js';
import { laneBookingsMadeIndex } from './migrations/0069_lane_bookings_made_idx.js';
import { laneBookingDays } from './migrations/0070_lane_booking_days.js';
import { attendanceAndReminders } from './migrations/0075_attendance_and_reminders.js';
import { bookingReadIndexes } from './migrations/0077_booking_read_indexes.js';
import { roundRobinPickFunction } from './migrations/0080_round_robin_pick_function.js';
import { reservationsPrivacy } from './privacy.js';
import type { ReservationSeriesTable } from './repo.js';
import { reservationRoutes } from './routes.js';
import {
  createReservationsService,
  EXPIRY_EVERY_MINUTES,
  LANE_DAYS_PRUNE_EVERY_MINUTES,
  REMINDERS_EVERY_MINUTES,
  RESERVATION_EXPIRY_JOB,
  RESERVATION_LANE_DAYS_PRUNE_JOB,
  RESERVATION_REMINDERS_JOB,
  type ReservationsService,
} from './service.js';
import type { ReservationTables } from './tables.js';
import { reservationTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    reservations: ReservationsService;
  }
}

declare module '../../db/types.js' {
  interface Database extends ReservationTables {
    reservationSeries: ReservationSeriesTable;
  }
}

export const reservationsModule = defineModule({
  name: 'reservations',
  tables: ['reservationSeries', 'reservations', 'reservationReminders', 'reservationLaneDays'],
  service: (deps, { organisations, availability, resourceTypes, resources, payments }) =>
    createReservationsService({ ...deps, organisations, availability, resourceTypes, resources, payments }),
  routes: [{ prefix: '/api/reservations', plugin: reservationRoutes }],
  tools: reservationTools,
  privacy: reservationsPrivacy,
  migrations: {
    '0049_public_hold_clients': publicHoldClients,
    '0056_reservation_references': reservationReferences,
    '0057_sealed_manage_tokens': sealedManageTokens,
    '0066_pool_assignments': poolAssignments,
    '0067_collective_reservations': collectiveReservations,
    '0069_lane_bookings_made_idx': laneBookingsMadeIndex,
    '0070_lane_booking_days': laneBookingDays,
    '0075_attendance_and_reminders': attendanceAndReminders,
    '0077_booking_read_indexes': bookingReadIndexes,
    '0080_round_robin_pick_function': roundRobinPickFunction,
  },
  jobs: ({ expireDue, sendDueReminders, pruneLaneDays }) => [
    sweep(RESERVATION_EXPIRY_JOB, EXPIRY_EVERY_MINUTES, expireDue),
    sweep(RESERVATION_REMINDERS_JOB, REMINDERS_EVERY_MINUTES, sendDueReminders),
    sweep(RESERVATION_LANE_DAYS_PRUNE_JOB, LANE_DAYS_PRUNE_EVERY_MINUTES, pruneLaneDays),
  ],
  presentation: { order: 14 },
});
