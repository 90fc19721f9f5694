import type { Id, JsonText, Timestamp } from '../../db/column-types.js';

export type DataSubjectRequestType = 'access' | 'export' | 'delete';

/** `pending` (new) -> `in_progress` (an operator started it) -> `completed`; or `rejected`, `cancelled`. */
export type DataSubjectRequestStatus = 'pending' | 'in_progress' | 'completed' | 'rejected' | 'cancelled';

export type ConsentType =
  | 'privacy_policy'
  | 'terms_of_service'
  | 'marketing_email'
  | 'data_processing'
  | 'cookie_analytics';

export type ConsentDecision = 'accepted' | 'revoked';

/**
 * A data-subject request. Kept after the person is erased (as proof it was served):
 * then `userId`, `reason`, `confirmEmail` and `resolution` are null.
 */
export interface DataSubjectRequestsTable {
  id: Id;
  userId: number | null;
  requestType: DataSubjectRequestType;
  status: DataSubjectRequestStatus;
  reason: string | null;
  /** Lowercase; equal to the account's email when given. */
  confirmEmail: string | null;
  /** The operator's note, e.g. why a request was rejected. */
  resolution: string | null;
  startedAt: Timestamp | null;
  completedAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** Append-only history of consent decisions; the current decision per type is the newest row. */
export interface ConsentDecisionsTable {
  id: Id;
  userId: number;
  consentType: ConsentType;
  decision: ConsentDecision;
  policyVersion: string;
  source: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  /** JSON object given by the client, or null. */
  metadata: JsonText | null;
  decidedAt: Timestamp;
}

/** Append-only history of privacy-policy acceptances. */
export interface PolicyAcceptancesTable {
  id: Id;
  userId: number;
  version: string;
  ipAddress: string | null;
  userAgent: string | null;
  acceptedAt: Timestamp;
}

/**
 * What happened to a request, for the operator's proof. Never holds personal data:
 * actions, request ids and row counts only, so it outlives the person's erasure.
 */
export interface PrivacyAuditTable {
  id: Id;
  requestId: number | null;
  action: string;
  /** `person`, `operator` or `job`. */
  actor: string;
  /** JSON object of counts and codes. */
  details: JsonText;
  createdAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface PrivacyTables {
  dataSubjectRequests: DataSubjectRequestsTable;
  consentDecisions: ConsentDecisionsTable;
  policyAcceptances: PolicyAcceptancesTable;
  privacyAudit: PrivacyAuditTable;
}
