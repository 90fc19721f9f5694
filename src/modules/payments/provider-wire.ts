import { z } from 'zod';
import type { ProviderAccount, ProviderCheckout, ProviderRefund } from './provider.js';

/** The provider's JSON bodies (snake_case, Unix seconds), and each as the port's type. */

export const accountJson = z.object({
  id: z.string().min(1),
  charges_enabled: z.boolean().nullish(),
  payouts_enabled: z.boolean().nullish(),
  details_submitted: z.boolean().nullish(),
  default_currency: z.string().nullish(),
  requirements: z
    .object({
      currently_due: z.array(z.string()).nullish(),
      pending_verification: z.array(z.string()).nullish(),
      disabled_reason: z.string().nullish(),
    })
    .nullish(),
});

export const linkJson = z.object({ url: z.url(), expires_at: z.number().nullish() });

const minorUnits = z.number().int().nonnegative();

export const checkoutJson = z.object({
  id: z.string().min(1),
  account: z.string().min(1),
  url: z.url(),
  status: z.enum(['open', 'complete', 'expired']),
  payment_status: z.enum(['unpaid', 'failed', 'paid', 'refunded']),
  amount_total: minorUnits,
  currency: z.string().min(1),
  payment_intent: z.string().min(1).nullish(),
  expires_at: z.number().int(),
  metadata: z.record(z.string(), z.string()).nullish(),
});

export const refundJson = z.object({
  id: z.string().min(1),
  checkout_session: z.string().min(1),
  payment_intent: z.string().min(1),
  amount: minorUnits,
  currency: z.string().min(1),
  status: z.enum(['pending', 'succeeded', 'failed']),
});

export const eventJson = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  created: z.number().int(),
  account: z.string().min(1),
  data: z.object({ object: z.unknown() }),
});

export const errorJson = z.object({
  error: z.object({ type: z.string().nullish(), code: z.string().nullish(), message: z.string().nullish() }),
});

export function toAccount(json: z.infer<typeof accountJson>): ProviderAccount {
  return {
    id: json.id,
    chargesEnabled: json.charges_enabled ?? false,
    payoutsEnabled: json.payouts_enabled ?? false,
    detailsSubmitted: json.details_submitted ?? false,
    currentlyDue: json.requirements?.currently_due ?? [],
    pendingVerification: json.requirements?.pending_verification ?? [],
    disabledReason: json.requirements?.disabled_reason ?? null,
    defaultCurrency: json.default_currency?.toLowerCase() ?? null,
  };
}

export function toCheckout(json: z.infer<typeof checkoutJson>): ProviderCheckout {
  return {
    id: json.id,
    accountId: json.account,
    url: json.url,
    status: json.status,
    paymentStatus: json.payment_status,
    amount: json.amount_total,
    currency: json.currency.toLowerCase(),
    paymentId: json.payment_intent ?? null,
    expiresAt: new Date(json.expires_at * 1000).toISOString(),
    metadata: json.metadata ?? {},
  };
}

export function toRefund(json: z.infer<typeof refundJson>): ProviderRefund {
  return {
    id: json.id,
    checkoutId: json.checkout_session,
    paymentId: json.payment_intent,
    amount: json.amount,
    currency: json.currency.toLowerCase(),
    status: json.status,
  };
}

/** The parsed text, or undefined when it is not JSON (the schema then refuses it). */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
