import type { PaymentProvider } from './provider.js';
import {
  type CallProvider,
  createProviderCaller,
  type HttpPaymentProviderOptions,
} from './provider-http-client.js';
import {
  accountJson,
  checkoutJson,
  linkJson,
  refundJson,
  toAccount,
  toCheckout,
  toRefund,
} from './provider-wire.js';

type AccountEndpoints = Pick<
  PaymentProvider,
  'createAccount' | 'createOnboardingLink' | 'createLoginLink' | 'retrieveAccount'
>;
type CheckoutEndpoints = Pick<
  PaymentProvider,
  'createCheckout' | 'retrieveCheckout' | 'expireCheckout' | 'refund'
>;

/** Connected accounts: created once per organisation (idempotency key), onboarded through links. */
function accountEndpoints(call: CallProvider): AccountEndpoints {
  const account = encodeURIComponent;
  return {
    async createAccount({ organisationId, idempotencyKey }) {
      return toAccount(
        await call({
          method: 'POST',
          path: '/v1/accounts',
          form: { type: 'express', 'metadata[organisation_id]': String(organisationId) },
          idempotencyKey,
          parse: accountJson,
        }),
      );
    },

    async createOnboardingLink({ accountId, refreshUrl, returnUrl }) {
      const link = await call({
        method: 'POST',
        path: '/v1/account_links',
        form: {
          account: accountId,
          refresh_url: refreshUrl,
          return_url: returnUrl,
          type: 'account_onboarding',
        },
        parse: linkJson,
      });
      return {
        url: link.url,
        expiresAt: link.expires_at ? new Date(link.expires_at * 1000).toISOString() : null,
      };
    },

    async createLoginLink(accountId) {
      const link = await call({
        method: 'POST',
        path: `/v1/accounts/${account(accountId)}/login_links`,
        form: {},
        parse: linkJson,
      });
      return { url: link.url };
    },

    async retrieveAccount(accountId) {
      return toAccount(
        await call({ method: 'GET', path: `/v1/accounts/${account(accountId)}`, parse: accountJson }),
      );
    },
  };
}

/** Hosted checkouts on a connected account, and refunds of their payments. */
function checkoutEndpoints(call: CallProvider): CheckoutEndpoints {
  const checkout = encodeURIComponent;
  return {
    async createCheckout(input) {
      const form: Record<string, string> = {
        account: input.accountId,
        amount: String(input.amount),
        currency: input.currency,
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        expires_at: String(Math.floor(Date.parse(input.expiresAt) / 1000)),
      };
      for (const [key, value] of Object.entries(input.metadata)) form[`metadata[${key}]`] = value;
      return toCheckout(
        await call({
          method: 'POST',
          path: '/v1/checkout/sessions',
          form,
          idempotencyKey: input.idempotencyKey,
          parse: checkoutJson,
        }),
      );
    },

    async retrieveCheckout(checkoutId) {
      return toCheckout(
        await call({
          method: 'GET',
          path: `/v1/checkout/sessions/${checkout(checkoutId)}`,
          parse: checkoutJson,
        }),
      );
    },

    async expireCheckout(checkoutId) {
      return toCheckout(
        await call({
          method: 'POST',
          path: `/v1/checkout/sessions/${checkout(checkoutId)}/expire`,
          form: {},
          // Expiring twice is harmless, so a key derived from the checkout makes it retryable.
          idempotencyKey: `expire-${checkoutId}`,
          parse: checkoutJson,
        }),
      );
    },

    async refund({ checkoutId, idempotencyKey }) {
      return toRefund(
        await call({
          method: 'POST',
          path: '/v1/refunds',
          form: { checkout_session: checkoutId },
          idempotencyKey,
          parse: refundJson,
        }),
      );
    },
  };
}

/**
 * The HTTP adapter of the payment port for a Connect-style REST API, with idempotency keys
 * on account and checkout creation and on refunds (retries: `createProviderCaller`).
 */
export function createHttpPaymentProvider(options: HttpPaymentProviderOptions): PaymentProvider {
  const call = createProviderCaller(options);
  return { ...accountEndpoints(call), ...checkoutEndpoints(call) };
}
