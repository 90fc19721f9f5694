import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import {
  type CheckoutEventType,
  type PaymentProvider,
  PaymentProviderError,
  type ProviderAccount,
  type ProviderCheckout,
  type ProviderEvent,
  type ProviderRefund,
} from './provider.js';

export interface HttpPaymentProviderOptions {
  /** e.g. `https://api.provider.example`; paths such as `/v1/accounts` are appended. */
  apiBase: string;
  /** Sent as `Authorization: Bearer <secretKey>`; never logged, never in an error. */
  secretKey: string;
  /** Bound on one attempt, headers and body together. */
  timeoutMs: number;
  /** Extra attempts for safe requests (GET, or POST with an idempotency key). Default 2. */
  retries?: number;
  /** First backoff step; doubled per retry, plus jitter. Default 100 ms. */
  backoffMs?: number;
  fetch?: typeof fetch;
}

const accountJson = z.object({
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

const linkJson = z.object({ url: z.url(), expires_at: z.number().nullish() });

const minorUnits = z.number().int().nonnegative();

const checkoutJson = z.object({
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

const refundJson = z.object({
  id: z.string().min(1),
  checkout_session: z.string().min(1),
  payment_intent: z.string().min(1),
  amount: minorUnits,
  currency: z.string().min(1),
  status: z.enum(['pending', 'succeeded', 'failed']),
});

const eventJson = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  created: z.number().int(),
  account: z.string().min(1),
  data: z.object({ object: z.unknown() }),
});

const errorJson = z.object({
  error: z.object({ type: z.string().nullish(), code: z.string().nullish(), message: z.string().nullish() }),
});

function toAccount(json: z.infer<typeof accountJson>): ProviderAccount {
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

function toCheckout(json: z.infer<typeof checkoutJson>): ProviderCheckout {
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

function toRefund(json: z.infer<typeof refundJson>): ProviderRefund {
  return {
    id: json.id,
    checkoutId: json.checkout_session,
    paymentId: json.payment_intent,
    amount: json.amount,
    currency: json.currency.toLowerCase(),
    status: json.status,
  };
}

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

interface Call<T> {
  method: 'GET' | 'POST';
  path: string;
  form?: Record<string, string>;
  idempotencyKey?: string;
  parse: z.ZodType<T>;
}

/**
 * The HTTP adapter of the payment port for a Connect-style REST API:
 * form-encoded bodies, bearer secret key, idempotency keys on account and
 * checkout creation and on refunds. Every attempt is bounded by `timeoutMs`. Only safe requests are
 * retried (GET, or POST carrying an idempotency key), and only after a network
 * failure or a 409/429/5xx answer, with a short exponential backoff. A timeout
 * is not retried: a provider that hangs once is likely to hang again, and the
 * caller's request must stay bounded.
 */
export function createHttpPaymentProvider(options: HttpPaymentProviderOptions): PaymentProvider {
  const base = options.apiBase.replace(/\/+$/, '');
  const retries = options.retries ?? 2;
  const backoffMs = options.backoffMs ?? 100;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  // Belt and braces: whatever the provider echoes, the key never reaches a log or a body.
  const scrub = (text: string) => text.split(options.secretKey).join('[redacted]').slice(0, 500);

  async function call<T>({ method, path, form, idempotencyKey, parse }: Call<T>): Promise<T> {
    const safe = method === 'GET' || idempotencyKey !== undefined;
    const attempts = safe ? 1 + retries : 1;
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.secretKey}`,
      accept: 'application/json',
    };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const body = form ? new URLSearchParams(form).toString() : undefined;
    const what = `${method} ${path}`;

    for (let attempt = 1; ; attempt += 1) {
      let status: number;
      let text: string;
      try {
        const response = await fetchImpl(`${base}${path}`, {
          method,
          headers,
          body,
          redirect: 'error',
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        status = response.status;
        text = await response.text();
      } catch (error) {
        const name = (error as { name?: string } | null)?.name;
        if (name === 'TimeoutError' || name === 'AbortError') {
          throw new PaymentProviderError('timeout', `${what} timed out after ${options.timeoutMs} ms`);
        }
        if (attempt < attempts) {
          await sleep(backoff(attempt));
          continue;
        }
        const reason = error instanceof Error ? scrub(error.message) : 'unknown';
        throw new PaymentProviderError('error', `${what} failed after ${attempt} attempt(s): ${reason}`);
      }

      if (status >= 200 && status < 300) {
        const parsed = parse.safeParse(safeJson(text));
        if (!parsed.success) throw new PaymentProviderError('error', `${what} answered an unexpected body`);
        return parsed.data;
      }
      if ((status >= 500 || status === 429 || status === 409) && attempt < attempts) {
        await sleep(backoff(attempt));
        continue;
      }
      const problem = errorJson.safeParse(safeJson(text));
      const detail = problem.success
        ? [problem.data.error.type, problem.data.error.code, problem.data.error.message]
            .filter(Boolean)
            .join(': ')
        : 'no error body';
      throw new PaymentProviderError(
        'error',
        `${what} answered HTTP ${status} after ${attempt} attempt(s): ${scrub(detail)}`,
      );
    }
  }

  function backoff(attempt: number): number {
    return backoffMs * 2 ** (attempt - 1) + Math.floor(Math.random() * backoffMs * 0.5);
  }

  const account = encodeURIComponent;
  const checkout = encodeURIComponent;

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

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
