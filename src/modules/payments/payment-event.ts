import type { CheckoutEventType, ProviderEvent } from './provider.js';
import { checkoutJson, eventJson, refundJson, safeJson, toCheckout, toRefund } from './provider-wire.js';

const CHECKOUT_EVENTS = new Set<string>([
  'checkout.completed',
  'checkout.async_payment_succeeded',
  'checkout.async_payment_failed',
  'checkout.failed',
  'checkout.expired',
] satisfies CheckoutEventType[]);

/**
 * The provider's webhook body as a `ProviderEvent`, or null when it is not an event of
 * the provider's format. Call it only on a body whose signature verified.
 */
export function parsePaymentEvent(rawBody: string): ProviderEvent | null {
  const event = eventJson.safeParse(safeJson(rawBody));
  if (!event.success) return null;
  const { id, type, account: accountId } = event.data;
  const createdAt = new Date(event.data.created * 1000).toISOString();
  if (CHECKOUT_EVENTS.has(type)) {
    const checkout = checkoutJson.safeParse(event.data.data.object);
    if (!checkout.success) return null;
    return {
      id,
      type: type as CheckoutEventType,
      accountId,
      createdAt,
      checkout: toCheckout(checkout.data),
    };
  }
  if (type === 'refund.succeeded') {
    const refund = refundJson.safeParse(event.data.data.object);
    if (!refund.success) return null;
    return { id, type, accountId, createdAt, refund: toRefund(refund.data) };
  }
  return { id, type: 'ignored', providerType: type };
}
