import { DomainError } from '../../lib/errors.js';

/**
 * The port to a Connect-style payment provider: connected accounts that a
 * platform onboards through hosted links, and hosted checkouts and refunds on them. `createHttpPaymentProvider` is the
 * real adapter; tests and development point it at tools/emulators/payment.
 */
export interface PaymentProvider {
  /**
   * Creates a connected account. The idempotency key makes a repeated call
   * (a retry, or a concurrent request for the same organisation) return the
   * same account instead of a second one.
   */
  createAccount(input: { organisationId: number; idempotencyKey: string }): Promise<ProviderAccount>;
  /** A hosted onboarding link; the provider sends the user back to `returnUrl` (or `refreshUrl` when expired). */
  createOnboardingLink(input: {
    accountId: string;
    refreshUrl: string;
    returnUrl: string;
  }): Promise<{ url: string; expiresAt: string | null }>;
  /** A single-use login link to the provider's dashboard for an onboarded account. */
  createLoginLink(accountId: string): Promise<{ url: string }>;
  retrieveAccount(accountId: string): Promise<ProviderAccount>;
  /**
   * A hosted checkout on the connected account `accountId`: the customer pays `amount`
   * (minor units) at `url` until `expiresAt`; the outcome arrives as a signed webhook
   * (`parsePaymentEvent`). The idempotency key makes a retried create answer the same checkout.
   */
  createCheckout(input: {
    accountId: string;
    amount: number;
    currency: string;
    /** Where the customer lands after paying; `{CHECKOUT_SESSION_ID}` is replaced by the checkout id. */
    successUrl: string;
    /** Where the customer lands after giving up or when the checkout expired. */
    cancelUrl: string;
    /** ISO time; the provider keeps whole seconds (rounded down). At most 24 hours ahead. */
    expiresAt: string;
    /** Echoed in the checkout and its events, e.g. `{reservation_id: "42"}`. */
    metadata: Record<string, string>;
    idempotencyKey: string;
  }): Promise<ProviderCheckout>;
  retrieveCheckout(checkoutId: string): Promise<ProviderCheckout>;
  /**
   * Closes an open checkout so it can no longer be paid (`checkout.expired` follows);
   * an already expired one is answered as it is; a completed one is a provider error.
   */
  expireCheckout(checkoutId: string): Promise<ProviderCheckout>;
  /** Refunds a completed checkout's payment in full (`refund.succeeded` follows). */
  refund(input: { checkoutId: string; idempotencyKey: string }): Promise<ProviderRefund>;
}

export interface ProviderAccount {
  id: string;
  chargesEnabled: boolean;
  payoutsEnabled: boolean;
  detailsSubmitted: boolean;
  currentlyDue: string[];
  pendingVerification: string[];
  disabledReason: string | null;
  defaultCurrency: string | null;
}

export interface ProviderCheckout {
  id: string;
  accountId: string;
  /** The hosted payment page; it stays valid and shows the checkout's state. */
  url: string;
  status: 'open' | 'complete' | 'expired';
  /** `failed`: the last attempt was declined; the checkout stays open and can still be paid. */
  paymentStatus: 'unpaid' | 'failed' | 'paid' | 'refunded';
  /** Minor units. */
  amount: number;
  /** Lowercase ISO 4217. */
  currency: string;
  /** The payment, once paid. */
  paymentId: string | null;
  expiresAt: string;
  metadata: Record<string, string>;
}

export interface ProviderRefund {
  id: string;
  checkoutId: string;
  paymentId: string;
  amount: number;
  currency: string;
  status: 'pending' | 'succeeded' | 'failed';
}

/**
 * What a checkout event says. `checkout.completed` pays only with `paymentStatus: "paid"`;
 * with `"unpaid"` (a payment method that settles later) the money follows as
 * `checkout.async_payment_succeeded`, or never (`checkout.async_payment_failed`).
 */
export type CheckoutEventType =
  | 'checkout.completed'
  | 'checkout.async_payment_succeeded'
  | 'checkout.async_payment_failed'
  | 'checkout.failed'
  | 'checkout.expired';

/**
 * A webhook event, once its signature verified (`verifyPaymentSignature`). `id` is stable
 * across redeliveries of one event (the key for replay safety); `ignored` is any event
 * type the service does not act on, which it still acknowledges.
 */
export type ProviderEvent =
  | {
      id: string;
      type: CheckoutEventType;
      accountId: string;
      createdAt: string;
      checkout: ProviderCheckout;
    }
  | { id: string; type: 'refund.succeeded'; accountId: string; createdAt: string; refund: ProviderRefund }
  | { id: string; type: 'ignored'; providerType: string };

/**
 * A provider failure as the API answers it: 502 `PROVIDER_ERROR` or 504
 * `PROVIDER_TIMEOUT`. The client sees a fixed message; the provider's own
 * answer (never the secret key) travels in `cause` to the log.
 */
export class PaymentProviderError extends DomainError {
  constructor(kind: 'error' | 'timeout', detail: string) {
    super(
      kind === 'timeout' ? 'PROVIDER_TIMEOUT' : 'PROVIDER_ERROR',
      kind === 'timeout'
        ? 'The payment provider did not answer in time; try again'
        : 'The payment provider could not complete the request; try again later',
    );
    this.cause = new Error(`payment provider: ${detail}`);
  }
}

/** Used when no provider is configured (tests that do not start the emulator). */
export const unconfiguredPaymentProvider: PaymentProvider = {
  createAccount: notConfigured,
  createOnboardingLink: notConfigured,
  createLoginLink: notConfigured,
  retrieveAccount: notConfigured,
  createCheckout: notConfigured,
  retrieveCheckout: notConfigured,
  expireCheckout: notConfigured,
  refund: notConfigured,
};

async function notConfigured(): Promise<never> {
  throw new PaymentProviderError('error', 'PAYMENT_API_BASE and PAYMENT_SECRET_KEY are not set');
}
