import type { Config } from '../../config.js';
import type { Db, Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, DomainError } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { Organisation } from '../organisations/schemas.js';
import type { OrganisationsService } from '../organisations/service.js';
import { createHttpPaymentProvider } from './http-provider.js';
import { parsePaymentEvent } from './payment-event.js';
import { type PaymentProvider, type ProviderEvent, unconfiguredPaymentProvider } from './provider.js';
import { connectStatusOf, createPaymentRepo, type StoredConnection } from './repo.js';
import type { DashboardLink, OnboardingLink, PaymentStatus, WebhookReceipt } from './schemas.js';
import { verifyPaymentSignature } from './webhook-signature.js';

/** A verified event the service acts on (every other type is acknowledged and ignored). */
export type ActionablePaymentEvent = Exclude<ProviderEvent, { type: 'ignored' }>;

/**
 * What the module that owns the paid thing did with an event: `applied` changed it,
 * `unchanged` found it already so, `unknown` found nothing of this account's waiting for
 * this checkout (the delivery is refused with 400 and forgotten, so it can come again).
 */
export type PaymentEventOutcome = 'applied' | 'unchanged' | 'unknown';
export type PaymentEventHandler = (event: ActionablePaymentEvent) => Promise<PaymentEventOutcome>;

/** How long received event ids are kept for replay safety: far beyond any provider's redelivery. */
const EVENT_RETENTION_MS = 30 * 86_400_000;

const badDelivery = (message: string) => new DomainError('BAD_REQUEST', message);

const SIGNATURE_REFUSALS = {
  malformed: 'The Payment-Signature header is missing or malformed',
  mismatch: 'The Payment-Signature does not match this body',
  stale: 'The Payment-Signature timestamp is more than 5 minutes away from now',
} as const;

/** The configured provider: the HTTP adapter when PAYMENT_API_BASE and PAYMENT_SECRET_KEY are set. */
export function paymentProviderFor(config: Config): PaymentProvider {
  const { apiBase, secretKey, timeoutMs } = config.payment;
  return apiBase && secretKey
    ? createHttpPaymentProvider({ apiBase, secretKey, timeoutMs })
    : unconfiguredPaymentProvider;
}

/** A connection that can take charges: active, charges enabled, as last synced from the provider. */
const canCharge = (
  stored: StoredConnection | undefined,
): stored is StoredConnection & { providerAccountId: string } =>
  !!stored?.providerAccountId && stored.providerConnectStatus === 'active' && stored.chargesEnabled;

function statusOf(organisation: Organisation, stored: StoredConnection | undefined): PaymentStatus {
  const connected = stored?.providerAccountId ? stored : undefined;
  return {
    organisationId: organisation.id,
    providerAccountId: connected?.providerAccountId ?? null,
    providerConnectStatus: connected?.providerConnectStatus ?? 'not_connected',
    defaultCurrency: organisation.defaultCurrency,
    chargesEnabled: connected?.chargesEnabled ?? false,
    payoutsEnabled: connected?.payoutsEnabled ?? false,
    detailsSubmitted: connected?.detailsSubmitted ?? false,
    requiresOnboarding: connected ? !connected.detailsSubmitted || connected.currentlyDue.length > 0 : false,
    currentlyDue: connected?.currentlyDue ?? [],
    pendingVerification: connected?.pendingVerification ?? [],
    disabledReason: connected?.disabledReason ?? null,
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;

/**
 * The organisation's connection to the payment provider. Every method needs the
 * matrix's `manageBilling` (OWNER, ADMIN); provider failures surface as 502 PROVIDER_ERROR or 504
 * PROVIDER_TIMEOUT.
 */
export function createPaymentsService(deps: {
  db: Db;
  config: Config;
  organisations: Pick<OrganisationsService, 'requireMembership'>;
  provider?: PaymentProvider;
}) {
  const { db, config, organisations } = deps;
  const provider = deps.provider ?? paymentProviderFor(config);
  const repo = createPaymentRepo(db.kysely);

  const requireBilling = (actor: Actor, organisationId: number) =>
    organisations.requireMembership(actor, organisationId, { can: 'manageBilling' });

  /** Who acts on verified checkout and refund events (the reservations service registers itself). */
  let eventHandler: PaymentEventHandler | undefined;

  /**
   * Where the provider sends the user back after onboarding (or when the link expired): the
   * console's payment screen, which says how it went (the organisation is named for the record:
   * the screen shows the active one).
   */
  const returnUrls = (organisationId: number) => {
    const page = `${config.frontendUrl}/app/payments?organisation=${organisationId}`;
    return { returnUrl: `${page}&onboarding=complete`, refreshUrl: `${page}&onboarding=refresh` };
  };

  async function syncFromProvider(organisationId: number, accountId: string) {
    const account = await provider.retrieveAccount(accountId);
    await repo.sync(organisationId, account, nowIso());
    return account;
  }

  return {
    provider,

    /**
     * The organisation's connected account when it can take charges (active, charges
     * enabled, as last synced from the provider: reading the status or an onboarding link
     * syncs it), read through `executor`; otherwise 409 PAYMENT_NOT_READY.
     */
    async chargeableAccount(organisationId: number, executor: Executor = db.kysely): Promise<string> {
      const stored = await createPaymentRepo(executor).find(organisationId);
      if (canCharge(stored)) return stored.providerAccountId;
      throw conflict(
        'PAYMENT_NOT_READY',
        stored?.providerAccountId
          ? 'This resource type takes payment, and the organisation’s payment account cannot take charges yet (onboarding is not complete); nothing was booked'
          : 'This resource type takes payment, and the organisation has no payment account connected; nothing was booked',
      );
    },

    /** Whether the organisation can take payments now (what `chargeableAccount` asks), without refusing. */
    async takesPayments(organisationId: number): Promise<boolean> {
      return canCharge(await createPaymentRepo(db.kysely).find(organisationId));
    },

    /**
     * Registers the one handler of verified checkout and refund events. The payments module
     * verifies and deduplicates deliveries; the module owning what was paid acts on them,
     * so neither imports the other's service.
     */
    handleEvents(handler: PaymentEventHandler): void {
      if (eventHandler) throw new Error('A payment event handler is already registered');
      eventHandler = handler;
    },

    /**
     * One webhook delivery, as received: `rawBody` exactly as sent (the signature covers its
     * bytes). 400 BAD_REQUEST, changing nothing, for a missing, malformed, wrong or stale
     * signature, a body that is no provider event, or a checkout nothing waits for. A
     * delivery of an event already received answers `duplicate: true` and changes nothing.
     */
    async receiveWebhook(rawBody: string, signature: string | undefined): Promise<WebhookReceipt> {
      const verdict = verifyPaymentSignature(
        signature,
        rawBody,
        config.payment.webhookSecret,
        Math.floor(Date.now() / 1000),
      );
      if (verdict !== 'ok') throw badDelivery(SIGNATURE_REFUSALS[verdict]);
      const event = parsePaymentEvent(rawBody);
      if (!event) throw badDelivery('The body is not an event of the payment provider');
      if (event.type === 'ignored') return { received: true, duplicate: false };
      const now = nowIso();
      if (!(await repo.claimEvent(event, now))) return { received: true, duplicate: true };
      let outcome: PaymentEventOutcome;
      try {
        outcome = eventHandler ? await eventHandler(event) : 'unknown';
      } catch (error) {
        // Not handled: the provider's next delivery must be, so the claim goes.
        await repo.unclaimEvent(event.id);
        throw error;
      }
      if (outcome === 'unknown') {
        await repo.unclaimEvent(event.id);
        throw badDelivery('No payment of this account is waiting for this checkout');
      }
      await repo.pruneEvents(new Date(Date.parse(now) - EVENT_RETENTION_MS).toISOString());
      return { received: true, duplicate: outcome === 'unchanged' };
    },

    /** The connection status; syncs from the provider first when an account is connected. */
    async status(actor: Actor, organisationId: number): Promise<PaymentStatus> {
      const { organisation } = await requireBilling(actor, organisationId);
      const stored = await repo.find(organisationId);
      if (!stored?.providerAccountId) return statusOf(organisation, stored);
      await syncFromProvider(organisationId, stored.providerAccountId);
      return statusOf(organisation, await repo.find(organisationId));
    },

    /**
     * Creates the connected account when there is none (idempotently: concurrent
     * calls and retries share one account), otherwise refreshes it, and answers a
     * new onboarding link.
     */
    async onboardingLink(actor: Actor, organisationId: number): Promise<OnboardingLink> {
      await requireBilling(actor, organisationId);
      await repo.ensure(organisationId, nowIso());
      const stored = (await repo.find(organisationId))!;
      let account = stored.providerAccountId
        ? await syncFromProvider(organisationId, stored.providerAccountId)
        : await provider.createAccount({ organisationId, idempotencyKey: stored.connectionKey });
      if (
        !stored.providerAccountId &&
        !(await repo.attach(organisationId, stored.connectionKey, account, nowIso()))
      ) {
        // A disconnect ran meanwhile; the new connection attempt has a new key.
        const current = await repo.find(organisationId);
        if (current?.providerAccountId !== account.id) {
          throw conflict('CONFLICT', 'The payment connection changed meanwhile; try again');
        }
        account = await syncFromProvider(organisationId, account.id);
      }
      const link = await provider.createOnboardingLink({
        accountId: account.id,
        ...returnUrls(organisationId),
      });
      return {
        url: link.url,
        providerAccountId: account.id,
        providerConnectStatus: connectStatusOf(account),
      };
    },

    /** A login link to the provider's dashboard; 409 ONBOARDING_INCOMPLETE unless the account is active. */
    async dashboardLink(actor: Actor, organisationId: number): Promise<DashboardLink> {
      await requireBilling(actor, organisationId);
      const stored = await repo.find(organisationId);
      const accountId = stored?.providerAccountId;
      if (!accountId) {
        throw conflict(
          'ONBOARDING_INCOMPLETE',
          'No payment account is connected; create an onboarding link first',
        );
      }
      if (stored.providerConnectStatus !== 'active') {
        // Onboarding may have finished since the last read.
        const account = await syncFromProvider(organisationId, accountId);
        if (connectStatusOf(account) !== 'active') {
          throw conflict('ONBOARDING_INCOMPLETE', 'Onboarding of the payment account is not complete yet');
        }
      }
      const link = await provider.createLoginLink(accountId);
      return { url: link.url, providerAccountId: accountId };
    },

    /** Removes the stored account from the organisation (the provider account itself is left alone). */
    async disconnect(actor: Actor, organisationId: number): Promise<PaymentStatus> {
      const { organisation } = await requireBilling(actor, organisationId);
      await repo.disconnect(organisationId, nowIso());
      return statusOf(organisation, undefined);
    },
  };
}
