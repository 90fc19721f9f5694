// The one way the pages talk to the service: its public API, typed by the generated schema.d.ts.
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export const api = createClient<paths>({ baseUrl: globalThis.location?.origin ?? '' });

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Get<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } } ? Json<R> : never;

export type Catalogue = Get<'/api/public/organisations/{slug}'>;
export type PublicOrganisation = Catalogue['organisation'];
export type PublicType = Catalogue['resourceTypes'][number];
export type PublicResource = Catalogue['resources'][number];
export type Availability = Get<'/api/public/organisations/{slug}/availability'>;
export type ManagedReservation = Get<'/api/public/reservations/{token}'>;
export type BookedReservation =
  paths['/api/public/organisations/{slug}/holds']['post']['responses'][201]['content']['application/json'];
export type ReservationBody = NonNullable<
  paths['/api/public/organisations/{slug}/holds']['post']['requestBody']
>['content']['application/json'];
export type ErrorEnvelope =
  paths['/api/public/reservations/{token}/cancel']['post']['responses'][409]['content']['application/json'];
export type Alternative = NonNullable<ErrorEnvelope['error']['alternatives']>[number];
export type ErrorDetail = NonNullable<ErrorEnvelope['error']['details']>[number];
/** An occurrence of a refused series that does not fit, with the times free instead. */
export type Conflict = NonNullable<ErrorEnvelope['error']['conflicts']>[number];

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
