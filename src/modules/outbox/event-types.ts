// No imports: the web app's console reads this list too (frontend/src/console/webhooks/webhook-events.ts).

/**
 * Every event type of DECISIONS.md "Events, webhooks and notifications", in its order, with
 * `reservation.reminder_sent` and `reservation.no_show` ("Booking everywhere") after the
 * reservation's own, and `webhook.disabled` (an endpoint disabled after 3 days of failures).
 */
export const EVENT_TYPES = [
  'reservation.created',
  'reservation.held',
  'reservation.confirmed',
  'reservation.rescheduled',
  'reservation.cancelled',
  'reservation.expired',
  'reservation.reminder_sent',
  'reservation.no_show',
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
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
