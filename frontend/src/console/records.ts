// The API's records as the console reads them, from the generated schema (never hand-copied).
import type { paths } from '../api/schema.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Get<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } } ? Json<R> : never;
type Body<P extends keyof paths, M extends 'post' | 'patch'> = paths[P] extends {
  [K in M]: { requestBody?: infer B };
}
  ? Json<NonNullable<B>>
  : never;

export type Organisation = Get<'/api/organisations'>[number];
export type ResourceType = Get<'/api/resource-types'>[number];
export type ResourceTypeBody = Body<'/api/resource-types', 'post'>;
export type Resource = Get<'/api/resources'>[number];
export type ResourceBody = Body<'/api/resources', 'post'>;
export type Reservation = Get<'/api/reservations/{id}'>;
export type ReservationStatus = Reservation['status'];
export type MemberOrInvitation = Get<'/api/organisations/{id}/users/list'>[number];

export const STATUSES: ReservationStatus[] = ['held', 'pending_payment', 'confirmed', 'cancelled', 'expired'];
export const statusWords = (s: ReservationStatus) => s.replace('_', ' ');

type WebhookList = Get<'/api/organisations/{id}/webhooks'>;
export type Webhook = WebhookList['items'][number];
export type WebhookEvent = Webhook['events'][number];
export type Delivery = Get<'/api/organisations/{id}/webhooks/{webhookId}/deliveries'>['items'][number];

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
