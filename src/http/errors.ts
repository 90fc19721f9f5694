import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  asDomainError,
  DomainError,
  type ErrorCode,
  InputError,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
  validationFailed,
} from '../lib/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Where the fields a service refuses (an InputError) came from: the part of the request
     * this route hands its service as input; `body` when unset. Declared on routes whose
     * service input is another part, e.g. `config: { serviceInput: 'query' }` on a list.
     */
    serviceInput?: 'body' | 'query' | 'params';
  }
}

/** The HTTP status of each domain error code. */
const STATUS: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  PLAN_LIMIT_REACHED: 403,
  CSRF_FAILED: 403,
  BLOCKED: 403,
  AGENT_PAUSED: 403,
  AGENT_LIMIT_REACHED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  RESOURCE_HAS_CHILD_LANES: 409,
  SLOT_UNAVAILABLE: 409,
  HOLD_EXPIRED: 409,
  INVALID_TRANSITION: 409,
  PAYMENT_NOT_READY: 409,
  BOOKING_RULE_VIOLATED: 409,
  RECURRENCE_NOT_ENABLED: 409,
  WAITLIST_NOT_ENABLED: 409,
  SLOT_AVAILABLE: 409,
  NO_ACTIVE_ORGANISATION: 409,
  LAST_OWNER: 409,
  LANE_HAS_RESERVATIONS: 409,
  RESOURCE_TYPE_IN_USE: 409,
  ONBOARDING_INCOMPLETE: 409,
  EMAIL_TAKEN: 409,
  EMAIL_NOT_VERIFIED: 403,
  TWO_FACTOR_REQUIRED: 403,
  TWO_FACTOR_INVALID: 401,
  LINK_EXPIRED: 410,
  APPROVAL_STALE: 409,
  HOST_UNAVAILABLE: 409,
  DEFAULT_CALENDAR: 409,
  INVITE_ALREADY_USED: 409,
  INVITE_EXPIRED: 410,
  ALREADY_MEMBER: 409,
  DEPENDENCY_CYCLE: 409,
  TASK_BLOCKED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  PROVIDER_ERROR: 502,
  NOT_READY: 503,
  UNAVAILABLE: 503,
  PROVIDER_TIMEOUT: 504,
};

export const httpStatusOf = (code: ErrorCode): number => STATUS[code];

/** What an error names in `details`: a refused field, a broken booking rule, or why a time does not fit. */
export const errorDetails = z.array(
  z.object({
    path: z.string().optional().describe('The refused field'),
    rule: z.string().optional().describe('The booking rule broken (BOOKING_RULE_VIOLATED)'),
    message: z.string(),
    code: z
      .string()
      .optional()
      .describe(
        "A schema failure's rule (Zod's issue code: too_big, too_small, invalid_type, invalid_format, invalid_value, unrecognized_keys, custom, ...); on SLOT_UNAVAILABLE why the time does not fit (OUTSIDE_HOURS, CLOSED_DAY, INACTIVE, NOTICE, ADVANCE, BOOKED, HELD, BUFFER, CALENDAR_BUSY, DAILY_CAP, TOO_SHORT, OFF_GRID; UNAVAILABLE on the public booking routes); absent on a service's own check",
      ),
    origin: z
      .string()
      .optional()
      .describe('too_big/too_small: what was measured (string, number, array, ...)'),
    minimum: z.number().optional().describe('too_small: the bound'),
    maximum: z.number().optional().describe('too_big: the bound'),
    inclusive: z.boolean().optional().describe('too_big/too_small: whether the bound itself is allowed'),
    format: z
      .string()
      .optional()
      .describe('invalid_format: the format expected (email, datetime, regex, ...)'),
    from: z
      .string()
      .optional()
      .describe(
        'SLOT_UNAVAILABLE: where the part of the asked time its reason (code) covers starts, as the explain routes answer',
      ),
    to: z.string().optional().describe('SLOT_UNAVAILABLE: where that part ends'),
    resourceId: z
      .number()
      .int()
      .optional()
      .describe('HOST_UNAVAILABLE: the resource of a collective booking that the reason (code) is about'),
  }),
);

/** The fields of a Zod issue a client needs to put it in words: its rule and bounds, nothing of the input. */
function ruleOf(issue: { keyword: string; params?: Record<string, unknown> }) {
  const params = issue.params ?? {};
  const rule: Record<string, unknown> = { code: issue.keyword };
  for (const [key, type] of [
    ['origin', 'string'],
    ['minimum', 'number'],
    ['maximum', 'number'],
    ['inclusive', 'boolean'],
    ['format', 'string'],
  ] as const)
    if (typeof params[key] === type) rule[key] = params[key];
  return rule;
}

/** Bookable times offered instead of a refused one (src/lib/errors.ts `Alternative`). */
export const alternatives = z
  .array(
    z.object({
      startTime: z.string(),
      endTime: z.string(),
      resourceId: z
        .number()
        .int()
        .describe(
          'The resource it is free on, the one a booking of it gets (a pool booking too); book it with this resourceId where the booking mode takes one, else with resourceTypeId',
        ),
      resourceIds: z
        .array(z.number().int())
        .optional()
        .describe('HOST_UNAVAILABLE: every resource of the collective booking, all free at this time'),
    }),
  )
  .describe(
    'On SLOT_UNAVAILABLE, HOST_UNAVAILABLE and BOOKING_RULE_VIOLATED of a booking, hold or reschedule: up to 5 bookable times of the same length on the same resource or pool within 14 days, nearest to the requested start first',
  );

export const errorEnvelope = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: errorDetails.optional(),
      alternatives: alternatives.optional(),
      conflicts: z
        .array(z.object({ startTime: z.string(), endTime: z.string(), alternatives }))
        .optional()
        .describe('On SLOT_UNAVAILABLE of a recurring booking: every occurrence that does not fit'),
      requestId: z.string(),
    }),
  })
  .describe('Error envelope');

/** The error envelope as the response schema of each listed status, for a route's OpenAPI entry. */
export function errorResponses<S extends number>(...statuses: S[]): Record<S, typeof errorEnvelope> {
  return Object.fromEntries(statuses.map((status) => [status, errorEnvelope])) as Record<
    S,
    typeof errorEnvelope
  >;
}

/** A field's path as the envelope names it: under its request part (`body.endTime`; `body` for the whole). */
const under = (part: string, path: string) => (path ? `${part}.${path}` : part);

/** A service's refused fields under the request part its route handed it. */
function placed(request: FastifyRequest, error: DomainError): DomainError {
  if (!(error instanceof InputError)) return error;
  const part = request.routeOptions.config?.serviceInput ?? 'body';
  return error.placed(part, (path) => under(part, path));
}

export function sendError(request: FastifyRequest, reply: FastifyReply, thrown: DomainError) {
  const error = placed(request, thrown);
  // UNAVAILABLE always says when to retry, also when rebuilt from a tool result (the gateway).
  const retryAfter =
    error.retryAfterSeconds ?? (error.code === 'UNAVAILABLE' ? UNAVAILABLE_RETRY_AFTER_SECONDS : undefined);
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  return reply.code(httpStatusOf(error.code)).send({
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      ...(error.alternatives ? { alternatives: error.alternatives } : {}),
      ...(error.conflicts ? { conflicts: error.conflicts } : {}),
      requestId: request.id,
    },
  });
}

/** Turns anything thrown into the envelope; nothing internal (stack, SQL) reaches the body. */
export function toDomainError(error: FastifyError): DomainError {
  const known = asDomainError(error);
  if (known) return known;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const part = error.validationContext ?? 'request';
    const details = error.validation.map((issue) => {
      const path = issue.instancePath.split('/').filter(Boolean).join('.');
      const keys =
        issue.keyword === 'unrecognized_keys' ? (issue.params as { keys?: string[] }).keys : undefined;
      return {
        path: under(part, path),
        message: keys ? `unknown field(s): ${keys.join(', ')}` : (issue.message ?? 'is invalid'),
        ...ruleOf(issue as { keyword: string; params?: Record<string, unknown> }),
      };
    });
    return validationFailed(
      `Invalid ${part}: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`,
      details,
    );
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return validationFailed('Request body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError('PAYLOAD_TOO_LARGE', 'Request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return validationFailed('Content-Length does not match the body');
  }
  if (error.statusCode === 429) return new DomainError('RATE_LIMITED', 'Too many requests');
  if (
    error.statusCode &&
    error.statusCode >= 400 &&
    error.statusCode < 500 &&
    !isResponseSerializationError(error)
  ) {
    return new DomainError(error.statusCode === 404 ? 'NOT_FOUND' : 'BAD_REQUEST', error.message);
  }
  return new DomainError('INTERNAL', 'Internal server error');
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const domainError = toDomainError(error);
    // An outage fails every request alike: one warning each, the cause without a stack.
    if (domainError.code === 'UNAVAILABLE')
      request.log.warn({ cause: String((error as Error).message) }, 'dependency unavailable');
    else if (httpStatusOf(domainError.code) >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, domainError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new DomainError('NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`),
    ),
  );
}
