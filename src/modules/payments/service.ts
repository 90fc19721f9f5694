import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { Organisation } from '../organisations/schemas.js';
import type { OrganisationsService } from '../organisations/service.js';
import { createHttpPaymentProvider } from './http-provider.js';
import { type PaymentProvider, unconfiguredPaymentProvider } from './provider.js';
import { connectStatusOf, createPaymentRepo, type StoredConnection } from './repo.js';
import type { DashboardLink, OnboardingLink, PaymentStatus } from './schemas.js';

/** The configured provider: the HTTP adapter when PAYMENT_API_BASE and PAYMENT_SECRET_KEY are set. */
export function paymentProviderFor(config: Config): PaymentProvider {
  const { apiBase, secretKey, timeoutMs } = config.payment;
  return apiBase && secretKey
    ? createHttpPaymentProvider({ apiBase, secretKey, timeoutMs })
    : unconfiguredPaymentProvider;
}

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

  /** Where the provider sends the user back after onboarding (or when the link expired). */
  const returnUrls = (organisationId: number) => {
    const page = `${config.frontendUrl}/organisations/${organisationId}/payment`;
    return { returnUrl: `${page}?onboarding=complete`, refreshUrl: `${page}?onboarding=refresh` };
  };

  async function syncFromProvider(organisationId: number, accountId: string) {
    const account = await provider.retrieveAccount(accountId);
    await repo.sync(organisationId, account, nowIso());
    return account;
  }

  return {
    provider,

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
