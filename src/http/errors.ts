import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';

export interface ErrorDetail {
  path: string;
  message: string;
}

/** A failure the client can act on: carries the status and the code of the error envelope. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const validationFailed = (message: string, details?: ErrorDetail[]) =>
  new AppError(400, 'VALIDATION_FAILED', message, details);
export const unauthenticated = (message = 'Authentication required') =>
  new AppError(401, 'UNAUTHENTICATED', message);
export const forbidden = (message = 'You do not have permission to do this') =>
  new AppError(403, 'FORBIDDEN', message);
export const notFound = (what = 'Resource') => new AppError(404, 'NOT_FOUND', `${what} not found`);
export const conflict = (code: string, message: string) => new AppError(409, code, message);

export const errorEnvelope = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
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

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError) {
  if (error.headers) reply.headers(error.headers);
  return reply.code(error.statusCode).send({
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      requestId: request.id,
    },
  });
}

/** Turns anything thrown into the envelope; nothing internal (stack, SQL) reaches the body. */
function toAppError(error: FastifyError): AppError {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const part = error.validationContext ?? 'request';
    const details = error.validation.map((issue) => {
      const path = issue.instancePath.split('/').filter(Boolean).join('.');
      const keys =
        issue.keyword === 'unrecognized_keys' ? (issue.params as { keys?: string[] }).keys : undefined;
      return {
        path: path ? `${part}.${path}` : part,
        message: keys ? `unknown field(s): ${keys.join(', ')}` : (issue.message ?? 'is invalid'),
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
      return new AppError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return validationFailed('Content-Length does not match the body');
  }
  if (error.statusCode === 429) return new AppError(429, 'RATE_LIMITED', 'Too many requests');
  if (
    error.statusCode &&
    error.statusCode >= 400 &&
    error.statusCode < 500 &&
    !isResponseSerializationError(error)
  ) {
    return new AppError(
      error.statusCode,
      error.statusCode === 404 ? 'NOT_FOUND' : 'BAD_REQUEST',
      error.message,
    );
  }
  return new AppError(500, 'INTERNAL', 'Internal server error');
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error);
    if (appError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new AppError(404, 'NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`),
    ),
  );
}
