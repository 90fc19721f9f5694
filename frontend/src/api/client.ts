// The one way the pages talk to the service: its API, typed by the generated schema.d.ts. `api`
// calls it without a session; api/session.ts makes `authed`, the same typed client carrying the
// signed-in person's token. Every answer goes through `unwrap`: its body, or an ApiError.
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';
import type { Alternative, Conflict, ErrorDetail, ErrorEnvelope } from './types.js';

export const api = createClient<paths>({ baseUrl: globalThis.location?.origin ?? '' });

/** A refusal of the API (its error envelope), or a request that never got an answer. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly alternatives: Alternative[] = [],
    readonly conflicts: Conflict[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { error?: { code?: unknown } }).error?.code === 'string'
  );
}

/** The answer's body, or an ApiError with the envelope's code, words, fields, alternatives and conflicts. */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<NonNullable<T>> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch {
    throw new ApiError(0, 'NETWORK', 'The booking service could not be reached.');
  }
  const { data, error, response } = result;
  if (response.ok && data !== undefined && data !== null) return data as NonNullable<T>;
  if (isEnvelope(error)) {
    const e = error.error;
    throw new ApiError(
      response.status,
      e.code,
      e.message,
      e.details ?? [],
      e.alternatives ?? [],
      e.conflicts ?? [],
    );
  }
  throw new ApiError(response.status, 'INTERNAL', `The service answered ${response.status}.`);
}

/** A fresh Idempotency-Key for one attempt of a write: a retried request cannot book twice. */
export const idempotencyKey = () => crypto.randomUUID();

/** An answer without a body (202, 204) as a value `unwrap` accepts. */
export const noBody = <T extends { response: Response }>(result: T) => ({
  ...result,
  data: result.response.ok ? {} : undefined,
});
