import { DomainError, type ErrorCode } from '../../lib/errors.js';
import { customerRecordOf, storedCustomerInfo } from './answers.js';
import type { DryRunAnswer, WouldBeReservation } from './dry-run-schemas.js';
import type { NewReservation } from './repo.js';

/**
 * Dry runs (`?dryRun=true`, the MCP `dryRun` argument): a write checked as it would run,
 * writing nothing. The refusals below are what the world as it is answers the write (its
 * time, its rules, its state, the organisation's payment account): a dry run reports them
 * as `wouldSucceed: false`. Every other error (bad input, no permission, not found) is the
 * caller's to fix before asking anything, and stays the error it is.
 */
export const DRY_RUN_REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'SLOT_UNAVAILABLE',
  'HOST_UNAVAILABLE',
  'BOOKING_RULE_VIOLATED',
  'HOLD_EXPIRED',
  'INVALID_TRANSITION',
  'PAYMENT_NOT_READY',
  // A limit the customer has reached (live public holds).
  'CONFLICT',
]);

/** Runs a dry run's `work` and answers its verdict: the would-be record, or the refusal. */
export async function dryRunOf<T>(work: () => Promise<T>): Promise<DryRunAnswer<T>> {
  try {
    return { wouldSucceed: true, reservation: await work() };
  } catch (error) {
    if (!(error instanceof DomainError) || !DRY_RUN_REFUSALS.has(error.code)) throw error;
    return {
      wouldSucceed: false,
      error: {
        code: error.code,
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
        alternatives: error.alternatives ?? [],
      },
    };
  }
}

/**
 * The record a booking of `values` would write at `now`: what the insert would answer,
 * without an id. A paid booking shows the payment it would ask for, with no checkout yet.
 */
export function wouldBeBooked(values: NewReservation, now: string): WouldBeReservation {
  const paying = values.status === 'pending_payment' && values.priceAmount !== null && values.priceCurrency;
  return {
    id: null,
    reference: null,
    resourceTypeId: values.resourceTypeId,
    resourceId: values.resourceIds?.[0] ?? values.resourceId,
    resourceIds: values.resourceIds ?? [values.resourceId],
    status: values.status,
    startTime: values.startTime,
    endTime: values.endTime,
    customer: customerRecordOf({
      customerName: values.customer.name,
      customerEmail: values.customer.email,
      customerPhone: values.customer.phone ?? null,
      customerInfo: storedCustomerInfo(values.customer),
    }),
    notes: values.notes,
    priceAmount: values.priceAmount,
    priceCurrency: values.priceCurrency,
    source: values.source,
    createdByUserId: values.createdByUserId,
    rulesOverriddenByUserId: values.rulesOverriddenByUserId,
    createdAt: now,
    updatedAt: now,
    cancelledAt: null,
    expiresAt: values.expiresAt,
    seriesId: null,
    assignment: values.assignment ? { ...values.assignment, resourceId: values.resourceId } : null,
    attendance: null,
    payment: paying
      ? {
          status: 'requires_payment',
          amount: values.priceAmount!,
          currency: values.priceCurrency!,
          checkoutUrl: null,
          expiresAt: values.expiresAt,
        }
      : null,
  };
}
