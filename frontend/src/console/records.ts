// The console's words and lists for the API's records (the records themselves: api/types.ts).
import type { Organisation, ReservationStatus, WebhookEvent } from '../api/types.js';

export const STATUSES: ReservationStatus[] = ['held', 'pending_payment', 'confirmed', 'cancelled', 'expired'];
export const statusWords = (s: ReservationStatus) => s.replace('_', ' ');

/** Every event an endpoint may take, in the API's order (a type error here when the API's list changes). */
export const WEBHOOK_EVENTS = [
  'reservation.created',
  'reservation.held',
  'reservation.confirmed',
  'reservation.rescheduled',
  'reservation.cancelled',
  'reservation.expired',
  'payment.succeeded',
  'payment.refunded',
  'waitlist.joined',
  'waitlist.offered',
  'waitlist.expired',
  'membership.invited',
  'membership.accepted',
  'agent.approval.requested',
  'agent.approval.decided',
  'calendar_sync.needs_reconnect',
  'privacy.request.completed',
  'webhook.disabled',
] as const satisfies readonly WebhookEvent[];
type Missing = Exclude<WebhookEvent, (typeof WEBHOOK_EVENTS)[number]>;
/** Fails to compile while an event of the API is missing above. */
export const everyEventListed: [Missing] extends [never] ? true : Missing = true;

/**
 * The organisation's currency (its payment account's too: the payment status answers the same
 * code): what a new type is priced in and what an agent policy's amounts are counted in.
 */
export const organisationCurrency = (org: Pick<Organisation, 'defaultCurrency'>) =>
  org.defaultCurrency.toUpperCase();

/** Minor units per major unit of a currency: 100 for EUR, 1 for JPY. */
export function minorPerMajor(currency: string): number {
  try {
    const f = new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() });
    return 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2);
  } catch {
    return 100;
  }
}
