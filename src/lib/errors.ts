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
  'AGENT_LIMIT_REACHED',
  'NOT_FOUND',
  'CONFLICT',
  'IDEMPOTENCY_KEY_REUSED',
  'RESOURCE_HAS_CHILD_LANES',
  'SLOT_UNAVAILABLE',
  'HOLD_EXPIRED',
  'INVALID_TRANSITION',
  'PAYMENT_NOT_READY',
  'BOOKING_RULE_VIOLATED',
  'RECURRENCE_NOT_ENABLED',
  'WAITLIST_NOT_ENABLED',
  'SLOT_AVAILABLE',
  'NO_ACTIVE_ORGANISATION',
  'LAST_OWNER',
  'LANE_HAS_RESERVATIONS',
  'RESOURCE_TYPE_IN_USE',
  'ONBOARDING_INCOMPLETE',
  'EMAIL_TAKEN',
  'EMAIL_NOT_VERIFIED',
  'TWO_FACTOR_REQUIRED',
  'TWO_FACTOR_INVALID',
  'LINK_EXPIRED',
  'APPROVAL_STALE',
  'HOST_UNAVAILABLE',
  'DEFAULT_CALENDAR',
  'INVITE_ALREADY_USED',
  'INVITE_EXPIRED',
  'ALREADY_MEMBER',
  'DEPENDENCY_CYCLE',
  'TASK_BLOCKED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'PROVIDER_ERROR',
  'PROVIDER_TIMEOUT',
  'NOT_READY',
  'UNAVAILABLE',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetail {
  path: string;
  message: string;
  /** A schema failure's rule and bounds (Zod's issue fields), for clients that put it in words. */
  code?: string;
  origin?: string;
  minimum?: number;
  maximum?: number;
  inclusive?: boolean;
  format?: string;
}

/** A booking rule of the resource type that a write broke (BOOKING_RULE_VIOLATED). */
export interface RuleDetail {
  rule: string;
  message: string;
}

/**
 * Why a refused time does not fit (SLOT_UNAVAILABLE): the availability engine's reason, as
 * its explanations name it, with the part of the time it covers.
 */
export interface ReasonDetail {
  code: string;
  message: string;
  from?: string;
  to?: string;
  /** HOST_UNAVAILABLE: the resource of a collective booking the reason is about. */
  resourceId?: number;
}

/**
 * A time that would be booked instead of a refused one (SLOT_UNAVAILABLE, BOOKING_RULE_VIOLATED):
 * `resourceId` is the resource it is free on, the one a booking of it gets (a pool's too).
 */
export interface Alternative {
  startTime: string;
  endTime: string;
  resourceId: number;
  /** A collective booking's: every resource, all free then. */
  resourceIds?: number[];
}

/** An occurrence of a recurring booking that does not fit (SLOT_UNAVAILABLE of a series), with what would. */
export interface OccurrenceConflict {
  startTime: string;
  endTime: string;
  alternatives: Alternative[];
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[] | RuleDetail[] | ReasonDetail[],
    /** For RATE_LIMITED and UNAVAILABLE: when the caller may try again. */
    readonly retryAfterSeconds?: number,
    /** For a refused booking, hold or reschedule: bookable times near the one asked for, nearest first. */
    readonly alternatives?: Alternative[],
    /** For a refused recurring booking: every occurrence that does not fit. */
    readonly conflicts?: OccurrenceConflict[],
  ) {
    super(message);
  }
}

/** `error` offering `alternatives` (every other part as it was). */
export const withAlternatives = (error: DomainError, alternatives: Alternative[]) =>
  new DomainError(
    error.code,
    error.message,
    error.details,
    error.retryAfterSeconds,
    alternatives,
    error.conflicts,
  );

/** `error` with `details` (every other part as it was). */
export const withDetails = (error: DomainError, details: ReasonDetail[]) =>
  new DomainError(
    error.code,
    error.message,
    details,
    error.retryAfterSeconds,
    error.alternatives,
    error.conflicts,
  );

export const validationFailed = (message: string, details?: ErrorDetail[]) =>
  new DomainError('VALIDATION_FAILED', message, details);

/**
 * Fields of a service's input that it refuses. Each path names a field of that input
 * (`endTime`, `permissions.0.actionKey`; '' for the input as a whole), never a transport's
 * part: each transport places the paths where its caller sent them, and words the message
 * with them (`placed`): HTTP under the request part the route hands its service
 * (`body.endTime`, src/http/errors.ts), MCP as the tool's own argument names (`endTime`).
 */
export class InputError extends DomainError {
  constructor(
    readonly fields: readonly ErrorDetail[],
    private readonly describe: (fields: readonly ErrorDetail[], input: string) => string,
  ) {
    super('VALIDATION_FAILED', describe(fields, 'input'), [...fields]);
  }

  /** This failure as a transport shows it: `input` names the whole input, `place(path)` one field of it. */
  placed(input: string, place: (path: string) => string): DomainError {
    const details = this.fields.map(({ path, message }) => ({ path: place(path), message }));
    return validationFailed(this.describe(details, input), details);
  }
}

const listed = (fields: readonly ErrorDetail[]) => fields.map((f) => `${f.path}: ${f.message}`).join('; ');

/** Refused fields, worded `Invalid <input>: <path>: <message>; ...` (as schema validation words them). */
export const invalidFields = (fields: readonly ErrorDetail[]) =>
  new InputError(fields, (placed, input) => `Invalid ${input}: ${listed(placed)}`);
/** One refused field, worded `<path>: <message>`. */
export const invalidField = (path: string, message: string) => new InputError([{ path, message }], listed);
/** Refused fields under a sentence of their own, which names no path. */
export const invalidInput = (message: string, fields: readonly ErrorDetail[]) =>
  new InputError(fields, () => message);
/** A list's `cursor` that the list did not give out. */
export const invalidCursor = () =>
  invalidFields([{ path: 'cursor', message: 'is not a cursor this list gave out' }]);
export const unauthenticated = (message = 'Authentication required') =>
  new DomainError('UNAUTHENTICATED', message);
export const forbidden = (message = 'You do not have permission to do this') =>
  new DomainError('FORBIDDEN', message);
export const notFound = (what = 'Resource') => new DomainError('NOT_FOUND', `${what} not found`);
export const conflict = (code: ErrorCode, message: string) => new DomainError(code, message);

/** When a caller may retry after UNAVAILABLE: a lost connection is usually back within seconds. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export const unavailable = () =>
  new DomainError(
    'UNAVAILABLE',
    'The service cannot reach its database or cache right now; retry shortly',
    undefined,
    UNAVAILABLE_RETRY_AFTER_SECONDS,
  );

/**
 * PostgreSQL SQLSTATEs that say the server cannot serve now, not that the statement was
 * wrong: connection exceptions (08), shutdown and start-up (57P01-57P03), too many
 * connections (53300), and a statement cancelled by the statement timeout (57014).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300|57014)$/;
/** Socket failures reaching PostgreSQL or Redis. */
const UNREACHABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** Driver errors without a code: pg, pg-pool and ioredis word them so. */
const UNREACHABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client (has encountered a connection error|was closed) and is not queryable|Query read timeout|Connection is closed\.|Stream isn't writeable|Reached the max retries per request limit|Command timed out)/;

function isUnreachable(error: unknown, depth: number): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, message, name, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    name?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code)))
    return true;
  if (name === 'MaxRetriesPerRequestError') return true;
  if (typeof message === 'string' && UNREACHABLE_MESSAGE.test(message)) return true;
  // Node reports a failed connection to every address of a host as one AggregateError.
  if (Array.isArray(errors) && errors.some((inner) => isUnreachable(inner, depth + 1))) return true;
  return isUnreachable(cause, depth + 1);
}

/**
 * What a caller sees of anything thrown: a domain error as it is; a dependency that
 * cannot be reached (the database or Redis down, restarting, failing over, or too
 * slow to answer) as 503 UNAVAILABLE with a retry delay; undefined for anything else
 * (a bug, answered as INTERNAL). The HTTP error handler and the MCP tool call share it.
 */
export function asDomainError(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;
  return isUnreachable(error, 0) ? unavailable() : undefined;
}
