import type { Readable } from 'node:stream';
import type { Actor } from '../../lib/actor.js';
import { createAccess } from './access.js';
import { createConsents, type RequestContext } from './consents.js';
import type { PrivacyServiceDeps } from './context.js';
import { createOperator, type PrivacyOperator } from './operator.js';
import { createRequestProcessing } from './processing.js';
import { createPrivacyRepo } from './repo.js';
import { createPersonRequests } from './requests.js';
import type {
  AcceptPolicyInput,
  AccessReport,
  Consent,
  ConsentHistoryQuery,
  CreateRequestInput,
  DataSubjectRequest,
  ListRequestsQuery,
  PolicyAcceptance,
  UpsertConsentInput,
} from './schemas.js';

export type { RequestContext } from './consents.js';
export { PROCESS_REQUEST_JOB, type PrivacyServiceDeps } from './context.js';
export type { OperatorRequest, OperatorRequestDetail, PrivacyOperator } from './operator.js';
export { ErasureIncompleteError } from './processing.js';

/** The person's data-protection rights, and the operator's queue that works their requests. */
export interface PrivacyService {
  /** What the service holds about the caller, by category, with consents and who can act for them. */
  accessReport(actor: Actor): Promise<AccessReport>;
  /** Every personal record of the caller, as a JSON byte stream read from the database on demand. */
  export(actor: Actor): Promise<{ filename: string; stream: Readable }>;
  /** Files an access, export or erasure request; a confirm address must be the account's. */
  createRequest(actor: Actor, input: CreateRequestInput): Promise<DataSubjectRequest>;
  /** The caller's own requests, filtered and paged. */
  listRequests(
    actor: Actor,
    query: ListRequestsQuery,
  ): Promise<{ items: DataSubjectRequest[]; total: number; offset: number; limit: number }>;
  /** One of the caller's own requests (another person's answers as absent). */
  getRequest(actor: Actor, id: number): Promise<DataSubjectRequest>;
  /** The person withdraws a request nobody has started on (409 in any other state). */
  cancelRequest(actor: Actor, id: number): Promise<DataSubjectRequest>;
  /** The caller's current decision of each decided consent type. */
  listConsents(actor: Actor): Promise<Consent[]>;
  /** Every consent decision of the caller, newest first, by cursor. */
  consentHistory(
    actor: Actor,
    query: ConsentHistoryQuery,
  ): Promise<{ items: Consent[]; nextCursor: string | null }>;
  /** Appends a decision to the history; the newest one per type is the current decision. */
  decideConsent(
    actor: Actor,
    consentType: Consent['consentType'],
    input: UpsertConsentInput,
    context: RequestContext,
  ): Promise<Consent>;
  /**
   * Records an acceptance of the privacy policy, and the same moment as an `accepted`
   * decision of the `privacy_policy` consent, so the consent list agrees with it.
   */
  acceptPolicy(actor: Actor, input: AcceptPolicyInput, context: RequestContext): Promise<PolicyAcceptance>;
  /** Operator commands (CLI): the queue of every person's requests. */
  operator: PrivacyOperator;
}

/**
 * Privacy: access and export (access.ts), the person's requests (requests.ts), consents
 * (consents.ts), the job that works a request (processing.ts) and the operator's queue
 * (operator.ts). This file wires them; module.ts declares the job (the operator's `run`).
 */
export function createPrivacyService(deps: PrivacyServiceDeps): PrivacyService {
  const ctx = { ...deps, repo: createPrivacyRepo(deps.db.kysely) };
  const process = createRequestProcessing(ctx);
  return {
    ...createAccess(ctx),
    ...createPersonRequests(ctx),
    ...createConsents(ctx),
    operator: createOperator(ctx, process),
  };
}
