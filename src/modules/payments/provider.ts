import { DomainError } from '../../lib/errors.js';

/**
 * The port to a Connect-style payment provider: connected accounts that a
 * platform onboards through hosted links. `createHttpPaymentProvider` is the
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
};

async function notConfigured(): Promise<never> {
  throw new PaymentProviderError('error', 'PAYMENT_API_BASE and PAYMENT_SECRET_KEY are not set');
}
