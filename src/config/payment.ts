import { z } from 'zod';
import { absoluteUrl, invalidVariable } from './fields.js';

// Development-only secret: fine on a laptop, refused under NODE_ENV=production.
const DEV_PAYMENT_WEBHOOK_SECRET = 'dev-only-payment-webhook-secret-change-me';

/** The payment provider's API and the key of its webhook signatures. */
export const paymentEnv = z.object({
  PAYMENT_API_BASE: absoluteUrl.optional(),
  PAYMENT_SECRET_KEY: z.string().min(1).optional(),
  PAYMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  PAYMENT_WEBHOOK_SECRET: z
    .string()
    .min(16, 'must be at least 16 characters')
    .default(DEV_PAYMENT_WEBHOOK_SECRET),
});

type PaymentEnv = z.output<typeof paymentEnv>;

export interface PaymentConfig {
  apiBase: string | undefined;
  secretKey: string | undefined;
  timeoutMs: number;
  /** Key of the provider's webhook signatures (`Payment-Signature`). */
  webhookSecret: string;
}

/** Production takes payments through a real provider, with a webhook secret of its own. */
export function assertPaymentForProduction(e: PaymentEnv): void {
  if (!e.PAYMENT_API_BASE || !e.PAYMENT_SECRET_KEY)
    throw invalidVariable(
      'PAYMENT_API_BASE',
      'PAYMENT_API_BASE and PAYMENT_SECRET_KEY must be set in production',
    );
  if (e.PAYMENT_WEBHOOK_SECRET === DEV_PAYMENT_WEBHOOK_SECRET)
    throw invalidVariable('PAYMENT_WEBHOOK_SECRET', 'must be set in production');
}

/** The provider's address and key come together or not at all. */
export function assertPaymentPair(e: PaymentEnv): void {
  if (Boolean(e.PAYMENT_API_BASE) !== Boolean(e.PAYMENT_SECRET_KEY)) {
    const missing = e.PAYMENT_API_BASE ? 'PAYMENT_SECRET_KEY' : 'PAYMENT_API_BASE';
    throw invalidVariable(missing, 'PAYMENT_API_BASE and PAYMENT_SECRET_KEY are set together');
  }
}

export function paymentConfig(e: PaymentEnv): PaymentConfig {
  return {
    apiBase: e.PAYMENT_API_BASE,
    secretKey: e.PAYMENT_SECRET_KEY,
    timeoutMs: e.PAYMENT_TIMEOUT_MS,
    webhookSecret: e.PAYMENT_WEBHOOK_SECRET,
  };
}
