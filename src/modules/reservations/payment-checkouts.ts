import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { conflict } from '../../lib/errors.js';
import type { PaymentProvider, ProviderRefund } from '../payments/provider.js';
import type { CheckoutColumns } from './repo.js';
import type { Reservation } from './schemas.js';

/** What a paid reservation charges: its price snapshot, in minor units. */
export interface Charge {
  amount: number;
  currency: string;
}

/** The provider calls the reservation side of payment makes: checkouts opened and closed, refunds. */
export interface Checkouts {
  /**
   * A checkout for `reservation` on `accountId` closing at `expiresAt`. The idempotency key
   * names the reservation and that expiry, so the adapter's retries answer one checkout.
   */
  openCheckout(
    reservation: Reservation,
    accountId: string,
    charge: Charge,
    expiresAt: string,
  ): Promise<CheckoutColumns>;
  /** Closes a checkout nothing waits on any more; a failure only leaves it to expire by itself. */
  closeCheckout(checkoutId: string): Promise<void>;
  /** Refunds a checkout's payment in full; the key makes a retried or concurrent refund one refund. */
  refund(checkoutId: string): Promise<ProviderRefund>;
}

/** The charge of a reservation: its price snapshot (a paid type always has one above zero). */
export function chargeOf(reservation: Reservation): Charge {
  if (!reservation.priceAmount || !reservation.priceCurrency)
    throw conflict(
      'PAYMENT_NOT_READY',
      'This resource type takes payment but has no price above zero; nothing was charged',
    );
  return { amount: reservation.priceAmount, currency: reservation.priceCurrency };
}

export function createCheckouts(deps: {
  provider: PaymentProvider;
  config: Config;
  log?: FastifyBaseLogger | undefined;
}): Checkouts {
  const { provider, config, log } = deps;

  /** Where the customer lands after paying or giving up; the frontend reads the reservation's state. */
  const returnUrl = (reservationId: number, outcome: 'complete' | 'cancelled') =>
    `${config.frontendUrl}/payment/${outcome}?reservation=${reservationId}`;

  return {
    async openCheckout(reservation, accountId, charge, expiresAt) {
      const checkout = await provider.createCheckout({
        accountId,
        amount: charge.amount,
        currency: charge.currency,
        successUrl: returnUrl(reservation.id, 'complete'),
        cancelUrl: returnUrl(reservation.id, 'cancelled'),
        expiresAt,
        metadata: { reservation_id: String(reservation.id) },
        idempotencyKey: `reservation-${reservation.id}-${Date.parse(reservation.createdAt)}-checkout-${Date.parse(expiresAt)}`,
      });
      return {
        paymentAmount: checkout.amount,
        paymentCurrency: checkout.currency,
        paymentAccountId: accountId,
        paymentCheckoutId: checkout.id,
        paymentCheckoutUrl: checkout.url,
        paymentExpiresAt: checkout.expiresAt,
      };
    },

    async closeCheckout(checkoutId) {
      try {
        await provider.expireCheckout(checkoutId);
      } catch (error) {
        log?.warn({ err: error, checkoutId }, 'could not expire a payment checkout');
      }
    },

    refund: (checkoutId) => provider.refund({ checkoutId, idempotencyKey: `refund-${checkoutId}` }),
  };
}
