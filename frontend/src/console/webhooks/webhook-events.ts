// The events a webhook endpoint may take, checked against the API's own list when compiled.
import type { WebhookEvent } from '../../api/types.js';

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
