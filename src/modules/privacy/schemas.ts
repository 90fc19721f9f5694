import { z } from 'zod';
import { listOf, pageQuery, positiveId } from '../../http/schemas.js';

export const REQUEST_TYPES = ['access', 'export', 'delete'] as const;
export const REQUEST_STATUSES = ['pending', 'in_progress', 'completed', 'rejected', 'cancelled'] as const;
export const CONSENT_TYPES = [
  'privacy_policy',
  'terms_of_service',
  'marketing_email',
  'data_processing',
  'cookie_analytics',
] as const;

export const REASON_MAX = 1000;
export const CONFIRM_EMAIL_MAX = 254;
export const SEARCH_MAX = 120;
export const VERSION_MAX = 64;
export const SOURCE_MAX = 64;
export const REQUEST_LIST_LIMIT_MAX = 500;
/** Bytes of JSON a consent's metadata may take: it is evidence, not storage. */
export const METADATA_MAX_BYTES = 4096;
const OFFSET_MAX = 2_147_483_647;

export const requestType = z.enum(REQUEST_TYPES);
export const requestStatus = z.enum(REQUEST_STATUSES);
export const consentType = z.enum(CONSENT_TYPES);
export const consentDecision = z.enum(['accepted', 'revoked']);

export const createRequestBody = z.strictObject({
  requestType,
  reason: z.string().trim().max(REASON_MAX).nullable().optional(),
  confirmEmail: z
    .string()
    .trim()
    .toLowerCase()
    .max(CONFIRM_EMAIL_MAX)
    .nullable()
    .optional()
    .describe("Your account's email, to confirm (any case); a different one is refused"),
});
export type CreateRequestInput = z.infer<typeof createRequestBody>;

export const listRequestsQuery = z.strictObject({
  statuses: listOf(REQUEST_STATUSES).describe(
    `Any of ${REQUEST_STATUSES.join(', ')}; comma-separated or repeated`,
  ),
  requestTypes: listOf(REQUEST_TYPES).describe(
    `Any of ${REQUEST_TYPES.join(', ')}; comma-separated or repeated`,
  ),
  search: z
    .string()
    .trim()
    .max(SEARCH_MAX)
    .optional()
    .describe('Reason, confirmation email or resolution contains this (any case)'),
  offset: z.coerce.number().int().min(0).max(OFFSET_MAX).default(0),
  limit: z.coerce.number().int().min(1).max(REQUEST_LIST_LIMIT_MAX).default(50),
});
type ParsedListRequestsQuery = z.infer<typeof listRequestsQuery>;
/** The parsed query, with the filters optional (the operator's CLI builds it too). */
export type ListRequestsQuery = Partial<ParsedListRequestsQuery> &
  Pick<ParsedListRequestsQuery, 'offset' | 'limit'>;

export const requestParams = z.strictObject({ id: positiveId });

export const dataSubjectRequest = z.object({
  id: z.number().int(),
  requestType,
  status: requestStatus,
  reason: z.string().nullable(),
  confirmEmail: z.string().nullable(),
  resolution: z.string().nullable().describe("The operator's note, e.g. why the request was rejected"),
  createdAt: z.string(),
  updatedAt: z.string(),
  completedAt: z.string().nullable(),
});
export type DataSubjectRequest = z.infer<typeof dataSubjectRequest>;

export const requestList = z.object({
  items: z.array(dataSubjectRequest),
  total: z.number().int(),
  offset: z.number().int(),
  limit: z.number().int(),
});

export const consentParams = z.strictObject({ consentType });

export const upsertConsentBody = z.strictObject({
  decision: consentDecision,
  policyVersion: z.string().trim().min(1).max(VERSION_MAX),
  source: z.string().trim().min(1).max(SOURCE_MAX).nullable().optional().describe('e.g. web, mobile, signup'),
  metadata: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .refine((value) => value == null || Buffer.byteLength(JSON.stringify(value)) <= METADATA_MAX_BYTES, {
      message: `must be at most ${METADATA_MAX_BYTES} bytes of JSON`,
    }),
});
export type UpsertConsentInput = z.infer<typeof upsertConsentBody>;

export const consent = z.object({
  consentType,
  decision: consentDecision,
  policyVersion: z.string(),
  source: z.string().nullable(),
  decidedAt: z.string(),
});
export type Consent = z.infer<typeof consent>;

export const consentHistoryQuery = z.strictObject({
  consentType: consentType.optional(),
  ...pageQuery,
});
export type ConsentHistoryQuery = z.infer<typeof consentHistoryQuery>;

export const acceptPolicyBody = z.strictObject({ version: z.string().trim().min(1).max(VERSION_MAX) });
export type AcceptPolicyInput = z.infer<typeof acceptPolicyBody>;

export const policyAcceptance = z.object({ version: z.string(), acceptedAt: z.string() });
export type PolicyAcceptance = z.infer<typeof policyAcceptance>;

const agentDelegate = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.string(),
  permissionGroupId: z.string().nullable(),
  oauthClientId: z.string().nullable(),
  liveKeys: z.number().int(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
const oauthClientDelegate = z.object({
  clientId: z.string(),
  clientName: z.string().nullable(),
  agentId: z.number().int(),
  scope: z.string().nullable(),
  grantedAt: z.string(),
  expiresAt: z.string(),
});

export const accessReport = z.object({
  userId: z.number().int(),
  generatedAt: z.string(),
  categories: z.array(
    z.object({
      id: z.string(),
      module: z.string(),
      label: z.string(),
      purpose: z.string(),
      retention: z.string(),
      linkedToAccount: z
        .boolean()
        .describe('false: data tied to no account (IP addresses), counted where it names your email'),
      count: z.number().int(),
      tables: z.array(z.object({ table: z.string(), count: z.number().int(), erasure: z.string() })),
    }),
  ),
  consents: z.array(consent),
  policyAcceptance: policyAcceptance.nullable(),
  actingForYou: z.object({ agents: z.array(agentDelegate), oauthClients: z.array(oauthClientDelegate) }),
});
export type AccessReport = z.infer<typeof accessReport>;
