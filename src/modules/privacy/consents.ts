import { inTransaction } from '../../db/database.js';
import { InvalidCursorError } from '../../db/keyset.js';
import type { Actor } from '../../lib/actor.js';
import { invalidCursor } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { type PrivacyContext, requirePerson } from './context.js';
import { createPrivacyRepo } from './repo.js';
import type {
  AcceptPolicyInput,
  Consent,
  ConsentHistoryQuery,
  PolicyAcceptance,
  UpsertConsentInput,
} from './schemas.js';
import type { PrivacyService } from './service.js';

/** Longest user agent kept with a consent: enough to recognise a browser, no more. */
const USER_AGENT_MAX = 512;

/** Where a consent change came from, recorded with it. */
export interface RequestContext {
  ip: string | null;
  userAgent: string | null;
}

/** The acceptance and its `privacy_policy` consent decision commit together, at one moment. */
async function acceptPolicy(
  { db }: PrivacyContext,
  actor: Actor,
  input: AcceptPolicyInput,
  context: RequestContext,
): Promise<PolicyAcceptance> {
  requirePerson(actor);
  return inTransaction(db.kysely, async (trx) => {
    const r = createPrivacyRepo(trx);
    const now = nowIso();
    const ipAddress = context.ip;
    const userAgent = context.userAgent?.slice(0, USER_AGENT_MAX) ?? null;
    const acceptance = await r.insertAcceptance({
      userId: actor.userId,
      version: input.version,
      ipAddress,
      userAgent,
      now,
    });
    await r.insertConsent({
      userId: actor.userId,
      consentType: 'privacy_policy',
      decision: 'accepted',
      policyVersion: input.version,
      source: 'policy_acceptance',
      ipAddress,
      userAgent,
      metadata: null,
      now,
    });
    return acceptance;
  });
}

type Consents = Pick<PrivacyService, 'listConsents' | 'consentHistory' | 'decideConsent' | 'acceptPolicy'>;

/** The person's consent decisions and their acceptance of the privacy policy. */
export function createConsents(ctx: PrivacyContext): Consents {
  const { repo } = ctx;
  return {
    async listConsents(actor: Actor): Promise<Consent[]> {
      requirePerson(actor);
      return repo.currentConsents(actor.userId);
    },

    async consentHistory(actor: Actor, query: ConsentHistoryQuery) {
      requirePerson(actor);
      try {
        return await repo.consentHistory(actor.userId, query);
      } catch (error) {
        if (error instanceof InvalidCursorError) throw invalidCursor();
        throw error;
      }
    },

    async decideConsent(
      actor: Actor,
      consentType: Consent['consentType'],
      input: UpsertConsentInput,
      context: RequestContext,
    ): Promise<Consent> {
      requirePerson(actor);
      return repo.insertConsent({
        userId: actor.userId,
        consentType,
        decision: input.decision,
        policyVersion: input.policyVersion,
        source: input.source ?? null,
        ipAddress: context.ip,
        userAgent: context.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
        metadata: input.metadata ? JSON.stringify(input.metadata) : null,
        now: nowIso(),
      });
    },

    acceptPolicy: (actor, input, context) => acceptPolicy(ctx, actor, input, context),
  };
}
