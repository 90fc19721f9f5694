// The events a webhook endpoint may take: the server's own list, checked against the API's when compiled.
import { EVENT_TYPES } from '../../../../src/modules/outbox/event-types.js';
import type { WebhookEvent } from '../../api/types.js';

/** Every event an endpoint may take, in the API's order (a type error here when the two differ). */
export const WEBHOOK_EVENTS = EVENT_TYPES satisfies readonly WebhookEvent[];
type Missing = Exclude<WebhookEvent, (typeof WEBHOOK_EVENTS)[number]>;
/** Fails to compile while an event of the API is missing from the list. */
export const everyEventListed: [Missing] extends [never] ? true : Missing = true;
