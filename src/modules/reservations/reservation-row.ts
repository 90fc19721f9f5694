import type { Selectable } from 'kysely';
import { customerRecordOf } from './answers.js';
import type { Reservation, ReservationPayment } from './schemas.js';
import type { PaymentStatus, ReservationStatus, ReservationsTable } from './tables.js';

/** Whether a row's hold (or unpaid booking) has passed its expiry at `nowMs`, marked or not. */
export const lapsed = (row: Pick<Selectable<ReservationsTable>, 'expiresAt'>, nowMs: number) =>
  row.expiresAt !== null && Date.parse(row.expiresAt) <= nowMs;

/**
 * A row as callers see it at `nowMs`: a hold past its expiry is `expired` at once, as it
 * no longer keeps its time, whether or not the expiry job has marked it yet.
 */
export function toReservation(row: Selectable<ReservationsTable>, nowMs = Date.now()): Reservation {
  const expired = lapsed(row, nowMs);
  return {
    id: row.id,
    reference: row.reference,
    resourceTypeId: row.resourceTypeId,
    ...resourcesOf(row),
    status: expired ? 'expired' : row.status,
    startTime: row.startTime,
    endTime: row.endTime,
    customer: customerRecordOf(row),
    notes: row.notes,
    priceAmount: row.priceAmount,
    priceCurrency: row.priceCurrency,
    source: row.source,
    createdByUserId: row.createdByUserId,
    rulesOverriddenByUserId: row.rulesOverriddenByUserId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    cancelledAt: row.cancelledAt,
    expiresAt: expired ? null : row.expiresAt,
    seriesId: row.seriesId,
    payment: paymentOf(row, expired ? 'expired' : row.status),
    assignment: assignmentOf(row),
    attendance: row.attendance ?? null,
  };
}

/**
 * The record of a reservation event (outbox module): the row its trigger stored (JSON,
 * snake_case; PostgreSQL leaves out null columns, outbox migration 0040, and writes
 * timestamps with an offset) as callers saw it when the event occurred, by the one mapper
 * every answer goes through. Each column by name into a row of one shape: every consumer
 * maps every event it reads, and a row built key by key from the JSON cost a drain more
 * than the rest of its reading.
 */
export function reservationOfStoredRow(stored: unknown, occurredAt: string): Reservation {
  const columns = stored as Record<string, unknown>;
  const value = (name: string) => columns[name] ?? null;
  const instant = (name: string) => {
    const found = columns[name];
    // An instant as `toISOString` writes it (SQLite's stored rows) is kept as it is.
    return typeof found === 'string' && !CANONICAL_INSTANT.test(found)
      ? new Date(found).toISOString()
      : (found ?? null);
  };
  const row = {
    id: value('id'),
    organisationId: value('organisation_id'),
    resourceTypeId: value('resource_type_id'),
    resourceId: value('resource_id'),
    status: value('status'),
    startTime: instant('start_time'),
    endTime: instant('end_time'),
    blockedUntil: instant('blocked_until'),
    customerName: value('customer_name'),
    customerEmail: value('customer_email'),
    customerPhone: value('customer_phone'),
    customerInfo: value('customer_info'),
    notes: value('notes'),
    priceAmount: value('price_amount'),
    priceCurrency: value('price_currency'),
    source: value('source'),
    createdByUserId: value('created_by_user_id'),
    rulesOverriddenByUserId: value('rules_overridden_by_user_id'),
    cancelledAt: instant('cancelled_at'),
    expiresAt: instant('expires_at'),
    seriesId: value('series_id'),
    paymentStatus: value('payment_status'),
    paymentAmount: value('payment_amount'),
    paymentCurrency: value('payment_currency'),
    paymentAccountId: value('payment_account_id'),
    paymentCheckoutId: value('payment_checkout_id'),
    paymentCheckoutUrl: value('payment_checkout_url'),
    paymentExpiresAt: instant('payment_expires_at'),
    paymentId: value('payment_id'),
    paymentRefundId: value('payment_refund_id'),
    manageTokenHash: value('manage_token_hash'),
    // Never stored in an event (migration 0057): read as null.
    manageTokenSealed: value('manage_token_sealed'),
    publicClientHash: value('public_client_hash'),
    // Events stored before migration 0056 have none.
    reference: value('reference'),
    // Events stored before migration 0066 have none.
    assignmentStrategy: value('assignment_strategy'),
    assignmentReason: value('assignment_reason'),
    // Events stored before migration 0067 have none; parts write no events.
    resourceIds: value('resource_ids'),
    partOf: null,
    // Events stored before migration 0075 have none.
    attendance: value('attendance'),
    createdAt: instant('created_at'),
    updatedAt: instant('updated_at'),
    // Every column, so a new one is a compile error here until it is mapped.
  } satisfies Record<keyof ReservationsTable, unknown>;
  return toReservation(row as Selectable<ReservationsTable>, Date.parse(occurredAt));
}

/**
 * The resources a reservation takes: a collective one's as booked (the first is its
 * `resourceId`), else the one it holds.
 */
function resourcesOf(row: Selectable<ReservationsTable>): Pick<Reservation, 'resourceId' | 'resourceIds'> {
  if (row.resourceIds === null)
    return { resourceId: row.resourceId, resourceIds: row.resourceId === null ? [] : [row.resourceId] };
  const resourceIds = JSON.parse(row.resourceIds) as number[];
  return { resourceId: resourceIds[0] ?? null, resourceIds };
}

/** How a pool booking's resource was picked: null for a reservation of a named resource. */
function assignmentOf(row: Selectable<ReservationsTable>): Reservation['assignment'] {
  if (row.assignmentStrategy === null || row.resourceId === null) return null;
  return { strategy: row.assignmentStrategy, resourceId: row.resourceId, reason: row.assignmentReason ?? '' };
}

/** An instant already as `toISOString` writes it. */
const CANONICAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Payment statuses of a payment that can still be made (its checkout open). */
export const PAYABLE = ['requires_payment', 'failed'] as const satisfies readonly PaymentStatus[];

/**
 * A row's payment as callers see it: null until its checkout exists. A payment still
 * payable on a reservation no longer waiting for it (expired by the clock or the job, or
 * cancelled) is `expired`: its checkout closes with the reservation.
 */
function paymentOf(row: Selectable<ReservationsTable>, status: ReservationStatus): ReservationPayment {
  if (row.paymentStatus === null || row.paymentAmount === null || row.paymentCurrency === null) return null;
  const payable = (PAYABLE as readonly PaymentStatus[]).includes(row.paymentStatus);
  return {
    status: payable && status !== 'pending_payment' ? 'expired' : row.paymentStatus,
    amount: row.paymentAmount,
    currency: row.paymentCurrency,
    checkoutUrl: row.paymentCheckoutUrl,
    expiresAt: row.paymentExpiresAt,
  };
}
