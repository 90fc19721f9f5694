/**
 * Domain errors: what went wrong, in words a caller can act on, with no
 * transport in them. The HTTP layer (src/http/errors.ts) gives each code its
 * status; the MCP layer turns them into tool results with `isError: true`.
 */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'BAD_REQUEST',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'PLAN_LIMIT_REACHED',
  'CSRF_FAILED',
  'BLOCKED',
  'AGENT_PAUSED',
  'NOT_FOUND',
  'CONFLICT',
  'IDEMPOTENCY_KEY_REUSED',
  'RESOURCE_HAS_CHILD_LANES',
  'SLOT_UNAVAILABLE',
  'NO_ACTIVE_ORGANISATION',
  'LAST_OWNER',
  'LANE_HAS_RESERVATIONS',
  'RESOURCE_TYPE_IN_USE',
  'ONBOARDING_INCOMPLETE',
  'EMAIL_TAKEN',
  'DEFAULT_CALENDAR',
  'INVITE_ALREADY_USED',
  'INVITE_EXPIRED',
  'DEPENDENCY_CYCLE',
  'TASK_BLOCKED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'PROVIDER_ERROR',
  'PROVIDER_TIMEOUT',
  'NOT_READY',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetail {
  path: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** For RATE_LIMITED: when the caller may try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export const validationFailed = (message: string, details?: ErrorDetail[]) =>
  new DomainError('VALIDATION_FAILED', message, details);
export const unauthenticated = (message = 'Authentication required') =>
  new DomainError('UNAUTHENTICATED', message);
export const forbidden = (message = 'You do not have permission to do this') =>
  new DomainError('FORBIDDEN', message);
export const notFound = (what = 'Resource') => new DomainError('NOT_FOUND', `${what} not found`);
export const conflict = (code: ErrorCode, message: string) => new DomainError(code, message);
