// A small, real HTTP server speaking the Connect-style payments REST API the
// service's payment adapter calls, with in-memory state: connected accounts and
// their onboarding, hosted checkouts on them, refunds, and signed webhooks of the
// outcomes. Used by the tests and, when no provider is configured, by `npm start`
// in development.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RecordedEvent, type WebhookDelivery, WebhookOutbox } from './webhooks.js';

export { paymentSignatureHeader, type RecordedEvent, type WebhookDelivery } from './webhooks.js';

export type EmulatorMode = 'normal' | 'fail' | 'hang';
export type DelayedOutcome = 'succeeded' | 'failed';

export interface PaymentEmulatorOptions {
  /** Listen port; 0 (default) picks a free one. */
  port?: number;
  /** Listen host; loopback by default. */
  host?: string;
  /** When set, API calls must carry exactly `Authorization: Bearer <secretKey>`; otherwise any `sk_` key. */
  secretKey?: string;
  /** Lifetime of onboarding links; expired or used links redirect to their refresh_url. */
  linkTtlSeconds?: number;
  /** Where signed events are POSTed, e.g. `<PUBLIC_URL>/api/payments/webhooks`; unset: only recorded. */
  webhookUrl?: string;
  /** Key of the `Payment-Signature` HMAC (the service's PAYMENT_WEBHOOK_SECRET); needed with a URL. */
  webhookSecret?: string;
  /** Bound on one webhook delivery; default 10 s. */
  webhookTimeoutMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
}

export interface PaymentEmulator {
  /** Base URL, e.g. `http://127.0.0.1:41234`; use it as PAYMENT_API_BASE. */
  url: string;
  /**
   * How `/v1/*` calls behave: `fail` answers 500, `hang` never answers. `times`
   * limits it to that many calls, after which the emulator is normal again.
   */
  setBehaviour(mode: EmulatorMode, times?: number): void;
  /** Completes onboarding of an account as visiting its link would. */
  completeOnboarding(accountId: string): void;
  /** Every `/v1/*` call so far, oldest first. */
  requests(): RecordedRequest[];
  /** Where events go from now on; null: record them only. */
  setWebhookUrl(url: string | null): void;
  /** Every event so far, oldest first, with its delivery attempts. */
  events(): RecordedEvent[];
  /** Expires an open checkout at once and sends `checkout.expired` (as the admin route does). */
  expireCheckout(checkoutId: string): Promise<WebhookDelivery | null>;
  /**
   * The outcome of a payment that `?delayed=1` left unpaid (a bank transfer, a debit):
   * sends `checkout.async_payment_succeeded` or `checkout.async_payment_failed` (as the admin
   * route `POST /__admin/checkout/sessions/:id/settle {outcome}` does).
   */
  settleDelayedPayment(checkoutId: string, outcome: DelayedOutcome): Promise<WebhookDelivery | null>;
  /** Delivers an event again: same id and body, a fresh signature (a provider's redelivery). */
  resendEvent(eventId: string): Promise<WebhookDelivery | null>;
  /** Queues events instead of delivering them, until `releaseWebhooks` (late deliveries). */
  holdWebhooks(): void;
  /** Delivers the queued events in order and stops holding. */
  releaseWebhooks(): Promise<WebhookDelivery[]>;
  /** Resolves once no delivery is in flight (refund and expiry events go out in the background). */
  settled(): Promise<void>;
  /**
   * Forgets accounts, links, checkouts, refunds, events, idempotency keys and recorded calls;
   * behaviour back to normal, webhooks no longer held. The webhook URL stays.
   */
  reset(): void;
  close(): Promise<void>;
}

interface Account {
  id: string;
  object: 'account';
  type: string;
  created: number;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  default_currency: string;
  email: string | null;
  metadata: Record<string, string>;
  requirements: {
    currently_due: string[];
    eventually_due: string[];
    past_due: string[];
    pending_verification: string[];
    disabled_reason: string | null;
  };
}

interface Link {
  account: string;
  refreshUrl: string;
  returnUrl: string;
  expiresAt: number;
  used: boolean;
}

interface CheckoutSession {
  id: string;
  object: 'checkout.session';
  account: string;
  /** Minor units. */
  amount_total: number;
  amount_refunded: number;
  currency: string;
  status: 'open' | 'complete' | 'expired';
  /** `failed`: the last attempt was declined; the checkout stays open and payable. */
  payment_status: 'unpaid' | 'failed' | 'paid' | 'refunded';
  payment_intent: string | null;
  last_payment_error: { code: string; message: string } | null;
  created: number;
  expires_at: number;
  success_url: string;
  cancel_url: string;
  url: string;
  metadata: Record<string, string>;
}

interface Refund {
  id: string;
  object: 'refund';
  account: string;
  amount: number;
  currency: string;
  checkout_session: string;
  payment_intent: string;
  status: 'succeeded';
  created: number;
}

interface Answer {
  status: number;
  body: unknown;
}

const INITIAL_REQUIREMENTS = [
  'business_type',
  'external_account',
  'tos_acceptance.date',
  'tos_acceptance.ip',
];
const MAX_BODY_BYTES = 64 * 1024;
const MAX_CHECKOUT_SECONDS = 24 * 60 * 60;
/** How often open checkouts past their `expires_at` are expired (and `checkout.expired` sent). */
const EXPIRY_SWEEP_MS = 1000;

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
const seconds = () => Math.floor(Date.now() / 1000);
const apiError = (status: number, type: string, message: string, extra: Record<string, string> = {}) => ({
  status,
  body: { error: { type, message, ...extra } },
});
const isAbsoluteHttpUrl = (value: string | undefined) => {
  if (!value) return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

export async function startPaymentEmulator(options: PaymentEmulatorOptions = {}): Promise<PaymentEmulator> {
  const linkTtl = options.linkTtlSeconds ?? 300;
  const accounts = new Map<string, Account>();
  const links = new Map<string, Link>();
  const idempotency = new Map<string, { fingerprint: string; answer: Answer }>();
  const checkouts = new Map<string, CheckoutSession>();
  const events = new Map<string, RecordedEvent>();
  const outbox = new WebhookOutbox(
    options.webhookSecret,
    options.webhookTimeoutMs ?? 10_000,
    options.webhookUrl,
  );
  let recorded: RecordedRequest[] = [];
  let behaviour: { mode: EmulatorMode; remaining: number } = { mode: 'normal', remaining: Infinity };
  let baseUrl = '';

  function completeOnboarding(account: Account) {
    account.details_submitted = true;
    account.charges_enabled = true;
    account.payouts_enabled = true;
    account.requirements = {
      currently_due: [],
      eventually_due: [],
      past_due: [],
      pending_verification: [],
      disabled_reason: null,
    };
  }

  /** Records an event with a stable id; its body is fixed now, so every delivery carries the same bytes. */
  function emit(type: string, account: string, object: CheckoutSession | Refund): RecordedEvent {
    const eventId = id('evt');
    const body = JSON.stringify({
      id: eventId,
      object: 'event',
      type,
      created: seconds(),
      account,
      data: { object },
    });
    const event: RecordedEvent = { id: eventId, type, body, deliveries: [] };
    events.set(eventId, event);
    return event;
  }

  function pay(checkout: CheckoutSession): RecordedEvent {
    checkout.status = 'complete';
    checkout.payment_status = 'paid';
    checkout.payment_intent = id('pi');
    checkout.last_payment_error = null;
    return emit('checkout.completed', checkout.account, checkout);
  }

  /** A payment method that settles later: the checkout completes, the money is not there yet. */
  function completeUnpaid(checkout: CheckoutSession): RecordedEvent {
    checkout.status = 'complete';
    checkout.payment_intent = id('pi');
    return emit('checkout.completed', checkout.account, checkout);
  }

  async function settleDelayed(checkoutId: string, outcome: unknown): Promise<Answer> {
    const checkout = checkouts.get(checkoutId);
    if (!checkout) return apiError(404, 'invalid_request_error', 'No such checkout session');
    if (outcome !== 'succeeded' && outcome !== 'failed')
      return apiError(400, 'invalid_request_error', 'outcome must be succeeded or failed');
    if (checkout.status !== 'complete' || checkout.payment_status !== 'unpaid')
      return apiError(400, 'invalid_request_error', 'The checkout session has no delayed payment to settle');
    checkout.payment_status = outcome === 'succeeded' ? 'paid' : 'failed';
    const delivery = await outbox.send(emit(`checkout.async_payment_${outcome}`, checkout.account, checkout));
    return { status: 200, body: { checkout, delivery } };
  }

  function decline(checkout: CheckoutSession): RecordedEvent {
    checkout.payment_status = 'failed';
    checkout.last_payment_error = { code: 'card_declined', message: 'Your card was declined.' };
    return emit('checkout.failed', checkout.account, checkout);
  }

  function expire(checkout: CheckoutSession): RecordedEvent {
    checkout.status = 'expired';
    return emit('checkout.expired', checkout.account, checkout);
  }

  /** An open checkout past its `expires_at` expires whenever it is next touched, or by the sweep. */
  function expireIfDue(checkout: CheckoutSession): RecordedEvent | null {
    return checkout.status === 'open' && Date.now() >= checkout.expires_at * 1000 ? expire(checkout) : null;
  }

  /** Sends without waiting: a provider never holds an API answer for its webhooks. */
  function sendInBackground(event: RecordedEvent | null) {
    if (event) void outbox.send(event);
  }

  async function expireNow(checkoutId: string): Promise<Answer> {
    const checkout = checkouts.get(checkoutId);
    if (!checkout) return apiError(404, 'invalid_request_error', 'No such checkout session');
    if (checkout.status !== 'open')
      return apiError(400, 'invalid_request_error', `The checkout session is already ${checkout.status}`);
    const delivery = await outbox.send(expire(checkout));
    return { status: 200, body: { checkout, delivery } };
  }

  async function resend(eventId: string): Promise<Answer> {
    const event = events.get(eventId);
    if (!event) return apiError(404, 'invalid_request_error', 'No such event');
    return { status: 200, body: { eventId, delivery: await outbox.send(event) } };
  }

  const listEvents = () =>
    [...events.values()].map((event) => ({ ...event, deliveries: [...event.deliveries] }));

  function createCheckout(form: URLSearchParams): Answer {
    const accountId = form.get('account') ?? '';
    const account = accounts.get(accountId);
    if (!account)
      return apiError(400, 'invalid_request_error', `No such account: '${accountId}'`, {
        code: 'resource_missing',
        param: 'account',
      });
    if (!account.charges_enabled)
      return apiError(
        400,
        'invalid_request_error',
        'The account cannot accept charges until onboarding is complete',
        {
          code: 'account_not_ready',
          param: 'account',
        },
      );
    const amount = form.get('amount') ?? '';
    if (!/^[1-9]\d{0,7}$/.test(amount))
      return apiError(
        400,
        'invalid_request_error',
        'amount must be a positive integer of minor units, at most 99999999',
        { param: 'amount' },
      );
    const currency = form.get('currency') ?? '';
    if (!/^[A-Za-z]{3}$/.test(currency))
      return apiError(400, 'invalid_request_error', 'currency must be a three-letter ISO code', {
        param: 'currency',
      });
    for (const param of ['success_url', 'cancel_url'])
      if (!isAbsoluteHttpUrl(form.get(param) ?? undefined))
        return apiError(400, 'invalid_request_error', `${param} must be an absolute URL`, { param });
    const now = seconds();
    const expiresAtText = form.get('expires_at') ?? String(now + MAX_CHECKOUT_SECONDS);
    const expiresAt = Number(expiresAtText);
    if (!/^\d+$/.test(expiresAtText) || expiresAt <= now || expiresAt > now + MAX_CHECKOUT_SECONDS)
      return apiError(
        400,
        'invalid_request_error',
        'expires_at must be a unix time in the future, at most 24 hours ahead',
        { param: 'expires_at' },
      );
    const metadata = metadataOf(form);
    if (!metadata)
      return apiError(
        400,
        'invalid_request_error',
        'metadata takes at most 50 keys of up to 40 characters, values of up to 500',
        { param: 'metadata' },
      );
    const checkoutId = id('cs');
    const checkout: CheckoutSession = {
      id: checkoutId,
      object: 'checkout.session',
      account: accountId,
      amount_total: Number(amount),
      amount_refunded: 0,
      currency: currency.toLowerCase(),
      status: 'open',
      payment_status: 'unpaid',
      payment_intent: null,
      last_payment_error: null,
      created: now,
      expires_at: expiresAt,
      success_url: form.get('success_url')!,
      cancel_url: form.get('cancel_url')!,
      url: `${baseUrl}/checkout/${checkoutId}`,
      metadata,
    };
    checkouts.set(checkoutId, checkout);
    return { status: 200, body: checkout };
  }

  function refund(form: URLSearchParams): Answer {
    const checkoutId = form.get('checkout_session') ?? '';
    const checkout = checkouts.get(checkoutId);
    if (!checkout)
      return apiError(400, 'invalid_request_error', `No such checkout session: '${checkoutId}'`, {
        code: 'resource_missing',
        param: 'checkout_session',
      });
    if (checkout.payment_status === 'refunded')
      return apiError(400, 'invalid_request_error', 'The payment of this checkout is already refunded', {
        code: 'charge_already_refunded',
      });
    if (checkout.payment_status !== 'paid' || !checkout.payment_intent)
      return apiError(400, 'invalid_request_error', 'The checkout has no completed payment to refund', {
        code: 'payment_not_completed',
      });
    // Only full refunds: the whole amount, once.
    checkout.payment_status = 'refunded';
    checkout.amount_refunded = checkout.amount_total;
    const made: Refund = {
      id: id('re'),
      object: 'refund',
      account: checkout.account,
      amount: checkout.amount_total,
      currency: checkout.currency,
      checkout_session: checkout.id,
      payment_intent: checkout.payment_intent,
      status: 'succeeded',
      created: seconds(),
    };
    sendInBackground(emit('refund.succeeded', checkout.account, made));
    return { status: 200, body: made };
  }

  function authorised(request: IncomingMessage): boolean {
    const header = request.headers.authorization ?? '';
    if (!header.startsWith('Bearer ')) return false;
    const key = header.slice('Bearer '.length);
    return options.secretKey ? key === options.secretKey : key.startsWith('sk_');
  }

  /** The `/v1` API, after authentication and idempotency: one answer per call. */
  function api(method: string, path: string, form: URLSearchParams): Answer {
    if (method === 'POST' && path === '/v1/accounts') {
      const type = form.get('type');
      if (type !== 'express' && type !== 'standard' && type !== 'custom')
        return apiError(400, 'invalid_request_error', 'Missing or invalid parameter: type', {
          param: 'type',
        });
      const metadata = metadataOf(form);
      if (!metadata) return apiError(400, 'invalid_request_error', 'Invalid metadata', { param: 'metadata' });
      const account: Account = {
        id: id('acct'),
        object: 'account',
        type,
        created: seconds(),
        charges_enabled: false,
        payouts_enabled: false,
        details_submitted: false,
        default_currency: (form.get('default_currency') ?? 'usd').toLowerCase(),
        email: form.get('email'),
        metadata,
        requirements: {
          currently_due: [...INITIAL_REQUIREMENTS],
          eventually_due: [...INITIAL_REQUIREMENTS],
          past_due: [],
          pending_verification: [],
          disabled_reason: 'requirements.past_due',
        },
      };
      accounts.set(account.id, account);
      return { status: 200, body: account };
    }

    if (method === 'POST' && path === '/v1/account_links') {
      const accountId = form.get('account') ?? '';
      const type = form.get('type');
      const refreshUrl = form.get('refresh_url') ?? undefined;
      const returnUrl = form.get('return_url') ?? undefined;
      if (!accounts.has(accountId))
        return apiError(400, 'invalid_request_error', `No such account: '${accountId}'`, {
          code: 'resource_missing',
          param: 'account',
        });
      if (type !== 'account_onboarding' && type !== 'account_update')
        return apiError(400, 'invalid_request_error', 'Invalid type', { param: 'type' });
      if (!isAbsoluteHttpUrl(refreshUrl) || !isAbsoluteHttpUrl(returnUrl))
        return apiError(400, 'invalid_request_error', 'refresh_url and return_url must be absolute URLs', {
          param: isAbsoluteHttpUrl(refreshUrl) ? 'return_url' : 'refresh_url',
        });
      const token = randomBytes(18).toString('base64url');
      const expiresAt = seconds() + linkTtl;
      links.set(token, {
        account: accountId,
        refreshUrl: refreshUrl!,
        returnUrl: returnUrl!,
        expiresAt,
        used: false,
      });
      return {
        status: 200,
        body: {
          object: 'account_link',
          created: seconds(),
          expires_at: expiresAt,
          url: `${baseUrl}/connect/onboarding/${token}`,
        },
      };
    }

    const loginLink = /^\/v1\/accounts\/([^/]+)\/login_links$/.exec(path);
    if (method === 'POST' && loginLink) {
      const account = accounts.get(decodeURIComponent(loginLink[1]!));
      if (!account)
        return apiError(404, 'invalid_request_error', 'No such account', { code: 'resource_missing' });
      if (!account.details_submitted)
        return apiError(
          400,
          'invalid_request_error',
          'Cannot create a login link for an account that has not completed onboarding.',
        );
      return {
        status: 200,
        body: {
          object: 'login_link',
          created: seconds(),
          url: `${baseUrl}/express/${account.id}/dashboard?session=${randomBytes(12).toString('base64url')}`,
        },
      };
    }

    const accountPath = /^\/v1\/accounts\/([^/]+)$/.exec(path);
    if (method === 'GET' && accountPath) {
      const account = accounts.get(decodeURIComponent(accountPath[1]!));
      if (!account)
        return apiError(404, 'invalid_request_error', 'No such account', { code: 'resource_missing' });
      return { status: 200, body: account };
    }

    if (method === 'POST' && path === '/v1/checkout/sessions') return createCheckout(form);
    if (method === 'POST' && path === '/v1/refunds') return refund(form);

    const checkoutPath = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    const expirePath = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path);
    if ((method === 'GET' && checkoutPath) || (method === 'POST' && expirePath)) {
      const checkout = checkouts.get(decodeURIComponent((checkoutPath ?? expirePath)![1]!));
      if (!checkout)
        return apiError(404, 'invalid_request_error', 'No such checkout session', {
          code: 'resource_missing',
        });
      sendInBackground(expireIfDue(checkout));
      if (method === 'POST') {
        if (checkout.status === 'complete')
          return apiError(400, 'invalid_request_error', 'A completed checkout session cannot be expired', {
            code: 'checkout_complete',
          });
        if (checkout.status === 'open') sendInBackground(expire(checkout));
      }
      return { status: 200, body: checkout };
    }

    return apiError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path})`);
  }

  function send(response: ServerResponse, answer: Answer, headers: Record<string, string> = {}) {
    response.writeHead(answer.status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(answer.body));
  }

  function redirect(response: ServerResponse, location: string) {
    response.writeHead(302, { location });
    response.end();
  }

  /** `text` is HTML written by the emulator itself, never a caller's input. */
  function page(response: ServerResponse, status: number, title: string, text: string) {
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
        `<body><h1>${title}</h1><p>${text}</p></body></html>`,
    );
  }

  async function handle(request: IncomingMessage, response: ServerResponse, body: string) {
    const method = request.method ?? 'GET';
    const path = new URL(request.url ?? '/', 'http://emulator').pathname;

    // Pages a browser visits.
    const onboarding = /^\/connect\/onboarding\/([^/]+)$/.exec(path);
    if (method === 'GET' && onboarding) {
      const link = links.get(onboarding[1]!);
      const account = link && accounts.get(link.account);
      if (!link || !account)
        return page(response, 404, 'Link not found', 'This onboarding link is not known.');
      if (link.used || link.expiresAt < seconds()) return redirect(response, link.refreshUrl);
      link.used = true;
      completeOnboarding(account);
      return redirect(response, link.returnUrl);
    }
    const dashboard = /^\/express\/([^/]+)\/dashboard$/.exec(path);
    if (method === 'GET' && dashboard)
      return page(response, 200, 'Payments dashboard (emulator)', `Account ${dashboard[1]}`);
    // The hosted payment page: a visit pays (`fail=1` declines, `expire=1` expires the checkout,
    // `delayed=1` completes it unpaid until settled), and the event is delivered before the
    // customer is sent back.
    const checkoutPage = /^\/checkout\/([^/]+)$/.exec(path);
    if (method === 'GET' && checkoutPage) {
      const checkout = checkouts.get(decodeURIComponent(checkoutPage[1]!));
      if (!checkout) return page(response, 404, 'Checkout not found', 'This checkout is not known.');
      const query = new URL(request.url ?? '/', 'http://emulator').searchParams;
      const due = expireIfDue(checkout);
      if (due) await outbox.send(due);
      else if (checkout.status === 'open' && query.get('expire') === '1') await outbox.send(expire(checkout));
      else if (checkout.status === 'open' && query.get('fail') === '1') {
        await outbox.send(decline(checkout));
        return page(
          response,
          402,
          'Payment declined',
          `The card was declined. <a href="${checkout.url}">Try again</a>`,
        );
      } else if (checkout.status === 'open' && query.get('delayed') === '1')
        await outbox.send(completeUnpaid(checkout));
      else if (checkout.status === 'open') await outbox.send(pay(checkout));
      return checkout.status === 'complete'
        ? redirect(response, checkout.success_url.replaceAll('{CHECKOUT_SESSION_ID}', checkout.id))
        : redirect(response, checkout.cancel_url);
    }

    // Test controls.
    if (path.startsWith('/__admin/')) {
      if (method === 'GET' && path === '/__admin/requests')
        return send(response, { status: 200, body: recorded });
      if (method === 'POST' && path === '/__admin/reset') {
        controls.reset();
        return send(response, { status: 200, body: { ok: true } });
      }
      if (method === 'POST' && path === '/__admin/behaviour') {
        const input = (safeJson(body) ?? {}) as { mode?: unknown; times?: unknown };
        if (input.mode !== 'normal' && input.mode !== 'fail' && input.mode !== 'hang')
          return send(response, apiError(400, 'invalid_request_error', 'mode must be normal, fail or hang'));
        controls.setBehaviour(input.mode, typeof input.times === 'number' ? input.times : undefined);
        return send(response, { status: 200, body: { mode: input.mode } });
      }
      if (method === 'GET' && path === '/__admin/events')
        return send(response, { status: 200, body: listEvents() });
      if (method === 'POST' && path === '/__admin/webhooks/hold') {
        outbox.hold();
        return send(response, { status: 200, body: { held: true } });
      }
      if (method === 'POST' && path === '/__admin/webhooks/release')
        return send(response, { status: 200, body: { deliveries: await outbox.release() } });
      const expireCheckout = /^\/__admin\/checkout\/sessions\/([^/]+)\/expire$/.exec(path);
      if (method === 'POST' && expireCheckout)
        return send(response, await expireNow(decodeURIComponent(expireCheckout[1]!)));
      const settle = /^\/__admin\/checkout\/sessions\/([^/]+)\/settle$/.exec(path);
      if (method === 'POST' && settle) {
        const input = (safeJson(body) ?? {}) as { outcome?: unknown };
        return send(response, await settleDelayed(decodeURIComponent(settle[1]!), input.outcome));
      }
      const resendEvent = /^\/__admin\/events\/([^/]+)\/resend$/.exec(path);
      if (method === 'POST' && resendEvent)
        return send(response, await resend(decodeURIComponent(resendEvent[1]!)));
      const complete = /^\/__admin\/accounts\/([^/]+)\/complete-onboarding$/.exec(path);
      if (method === 'POST' && complete) {
        const account = accounts.get(decodeURIComponent(complete[1]!));
        if (!account) return send(response, apiError(404, 'invalid_request_error', 'No such account'));
        completeOnboarding(account);
        return send(response, { status: 200, body: account });
      }
      return send(response, apiError(404, 'invalid_request_error', 'Unknown admin route'));
    }

    if (!path.startsWith('/v1/')) return page(response, 404, 'Not found', 'Nothing here.');

    const idempotencyKey = header(request, 'idempotency-key');
    recorded.push({ method, path, idempotencyKey });
    if (behaviour.mode !== 'normal' && behaviour.remaining > 0) {
      behaviour.remaining -= 1;
      const mode = behaviour.mode;
      if (behaviour.remaining <= 0) behaviour = { mode: 'normal', remaining: Infinity };
      if (mode === 'hang') return; // never answers; close() drops the connection
      return send(response, apiError(500, 'api_error', 'Emulated provider failure'));
    }
    if (!authorised(request))
      return send(response, apiError(401, 'invalid_request_error', 'Invalid API Key provided'));

    const form = new URLSearchParams(body);
    if (method === 'POST' && idempotencyKey) {
      const fingerprint = `${path}\n${body}`;
      const seen = idempotency.get(idempotencyKey);
      if (seen) {
        if (seen.fingerprint !== fingerprint)
          return send(
            response,
            apiError(
              400,
              'idempotency_error',
              'Keys for idempotent requests can only be used with the same parameters they were first used with.',
            ),
          );
        return send(response, seen.answer, { 'idempotent-replayed': 'true' });
      }
      const answer = api(method, path, form);
      if (answer.status < 500) idempotency.set(idempotencyKey, { fingerprint, answer });
      return send(response, answer);
    }
    return send(response, api(method, path, form));
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        send(response, apiError(413, 'invalid_request_error', 'Request body too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      handle(request, response, Buffer.concat(chunks).toString('utf8')).catch(() => {
        if (!response.headersSent) send(response, apiError(500, 'api_error', 'Emulator error'));
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;
  const sweep = setInterval(() => {
    for (const checkout of checkouts.values()) sendInBackground(expireIfDue(checkout));
  }, EXPIRY_SWEEP_MS);
  sweep.unref();

  const controls: PaymentEmulator = {
    url: baseUrl,
    setBehaviour(mode, times) {
      behaviour = { mode, remaining: mode === 'normal' ? Infinity : (times ?? Infinity) };
    },
    completeOnboarding(accountId) {
      const account = accounts.get(accountId);
      if (!account) throw new Error(`No such account: ${accountId}`);
      completeOnboarding(account);
    },
    requests: () => [...recorded],
    setWebhookUrl: (url) => outbox.setUrl(url),
    events: listEvents,
    async expireCheckout(checkoutId) {
      const answer = await expireNow(checkoutId);
      if (answer.status !== 200)
        throw new Error(`Cannot expire ${checkoutId}: ${JSON.stringify(answer.body)}`);
      return (answer.body as { delivery: WebhookDelivery | null }).delivery;
    },
    async settleDelayedPayment(checkoutId, outcome) {
      const answer = await settleDelayed(checkoutId, outcome);
      if (answer.status !== 200)
        throw new Error(`Cannot settle ${checkoutId}: ${JSON.stringify(answer.body)}`);
      return (answer.body as { delivery: WebhookDelivery | null }).delivery;
    },
    async resendEvent(eventId) {
      const answer = await resend(eventId);
      if (answer.status !== 200) throw new Error(`No such event: ${eventId}`);
      return (answer.body as { delivery: WebhookDelivery | null }).delivery;
    },
    holdWebhooks: () => outbox.hold(),
    releaseWebhooks: () => outbox.release(),
    settled: () => outbox.settled(),
    reset() {
      accounts.clear();
      links.clear();
      checkouts.clear();
      events.clear();
      idempotency.clear();
      outbox.reset();
      recorded = [];
      behaviour = { mode: 'normal', remaining: Infinity };
    },
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweep);
        server.close(() => resolve());
        // Hanging calls and keep-alive sockets would hold close() open forever.
        server.closeAllConnections();
      }),
  };
  return controls;
}

function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return typeof value === 'string' && value ? value : null;
}

/** `metadata[key]=value` fields; null past 50 keys, 40-character keys or 500-character values. */
function metadataOf(form: URLSearchParams): Record<string, string> | null {
  const metadata: Record<string, string> = {};
  for (const [key, value] of form) {
    const match = /^metadata\[(.+)\]$/.exec(key);
    if (!match?.[1]) continue;
    if (match[1].length > 40 || value.length > 500) return null;
    metadata[match[1]] = value;
  }
  return Object.keys(metadata).length > 50 ? null : metadata;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
