import type { Dialect, Executor } from '../../db/database.js';
import { type AttendanceRepo, createAttendanceRepo } from './attendance-repo.js';
import { type BookingRepo, createBookingRepo } from './bookings-repo.js';
import { type CheckoutRepo, createCheckoutRepo } from './checkout-repo.js';
import { type CustomerLimitRepo, createCustomerLimitRepo } from './customer-limits-repo.js';
import { createLaneRepo, type LaneRepo } from './lanes-repo.js';
import { createPartRepo, type PartRepo } from './parts-repo.js';
import { createPaymentRepo, type PaymentRepo } from './payments-repo.js';
import { createReminderRepo, type ReminderRepo } from './reminders-repo.js';
import { createReservationReadsRepo, type ReservationReadsRepo } from './reservation-reads-repo.js';
import { createRoundRobinCounts, type RoundRobinCounter } from './round-robin-counts.js';
import { createRoundRobinPick, type RoundRobinPickRepo } from './round-robin-insert.js';
import { createStatusChangeRepo, type StatusChangeRepo } from './status-changes-repo.js';

export type { NewReservation } from './bookings-repo.js';
export type { CheckoutColumns } from './checkout-repo.js';
export { reservationOfStoredRow, toReservation } from './reservation-row.js';
export { createSeriesRepo, type ReservationSeriesTable, type StoredSeries } from './series-repo.js';

/**
 * Every query of reservations, one concern repo each: reads, a booking's insert, moves and
 * sweeps on a lane, status changes, the limits per customer, a paid booking's checkout and
 * payment, attendance, reminders, a round-robin pool booking's pick. Callers that need one concern
 * may take its repo alone.
 */
export interface ReservationRepo
  extends ReservationReadsRepo,
    BookingRepo,
    LaneRepo,
    StatusChangeRepo,
    CustomerLimitRepo,
    CheckoutRepo,
    PaymentRepo,
    PartRepo,
    AttendanceRepo,
    ReminderRepo,
    RoundRobinPickRepo,
    RoundRobinCounter {}

export function createReservationRepo(db: Executor, dialect: Dialect): ReservationRepo {
  return {
    ...createReservationReadsRepo(db, dialect),
    ...createBookingRepo(db, dialect),
    ...createLaneRepo(db, dialect),
    ...createStatusChangeRepo(db, dialect),
    ...createCustomerLimitRepo(db, dialect),
    ...createCheckoutRepo(db),
    ...createPaymentRepo(db, dialect),
    ...createPartRepo(),
    ...createAttendanceRepo(db),
    ...createReminderRepo(db, dialect),
    ...createRoundRobinPick(db),
    ...createRoundRobinCounts(db, dialect),
  };
}
