// The one way tests call the service over HTTP: app.inject, as a signed-in user (their bearer
// header) or as nobody, typed by the OpenAPI document's types where the document has the path
// (frontend/src/api/schema.d.ts: the routes the pages call), loosely anywhere else. And the one
// check of an answer's status, expectStatus.
import assert from 'node:assert/strict';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { paths } from '../../frontend/src/api/schema.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who a call is made as: anyone with a bearer header (a SignedInUser is one), or nobody. */
export type Caller = { auth: Record<string, string> } | null;

/** The document's paths that answer `method`, `{param}`s unfilled: `/api/reservations/{id}`. */
export type ApiPath<M extends Method> = {
  [P in keyof paths]: paths[P] extends Record<Lowercase<M>, object> ? P : never;
}[keyof paths];
type Operation<M extends Method, P extends ApiPath<M>> = paths[P][Lowercase<M>];
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body `method` on `path` takes, as the document says. */
export type RequestBody<M extends Method, P extends ApiPath<M>> =
  Operation<M, P> extends { requestBody?: infer R } ? Json<NonNullable<R>> : never;
/** The JSON body `method` on `path` answers with `status`, as the document says. */
export type Answer<M extends Method, P extends ApiPath<M>, S extends number> =
  Operation<M, P> extends { responses: infer R } ? (S extends keyof R ? Json<R[S]> : never) : never;

interface Request<B> {
  /** Values of the path's `{param}`s. */
  params?: Record<string, string | number>;
  /** The query string, without its `?`. */
  query?: string;
  body?: B;
  headers?: Record<string, string>;
}

/** The calls of one caller to one app. */
export interface Client {
  /** A call the document describes: its `{params}` filled in, its body typed (its answers: `Answer`). */
  send<M extends Method, P extends ApiPath<M>>(
    method: M,
    path: P,
    request?: Request<RequestBody<M, P>>,
  ): Promise<LightMyRequestResponse>;
  /** Any call, to any URL, with any body (refusals, malformed bodies, routes the document leaves out). */
  request(
    method: Method,
    url: string,
    payload?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  get(url: string): Promise<LightMyRequestResponse>;
  /** A POST without a body sends `{}`. */
  post(url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  put(url: string, payload: unknown): Promise<LightMyRequestResponse>;
  patch(url: string, payload: unknown): Promise<LightMyRequestResponse>;
  delete(url: string): Promise<LightMyRequestResponse>;
}

/** The client of `caller` (null: nobody) on `app`. */
export function client(app: FastifyInstance, caller: Caller): Client {
  const request: Client['request'] = (method, url, payload, headers = {}) => {
    const options: InjectOptions = { method, url, headers: { ...caller?.auth, ...headers } };
    if (payload !== undefined) options.payload = payload as InjectOptions['payload'];
    return app.inject(options);
  };
  return {
    send: (method, path, { params = {}, query, body, headers } = {}) => {
      const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
        const value = params[name];
        if (value === undefined) throw new Error(`${path}: no value for {${name}}`);
        return encodeURIComponent(String(value));
      });
      return request(method, query ? `${filled}?${query}` : filled, body, headers);
    },
    request,
    get: (url) => request('GET', url),
    post: (url, payload) => request('POST', url, payload ?? {}),
    put: (url, payload) => request('PUT', url, payload),
    patch: (url, payload) => request('PATCH', url, payload),
    delete: (url) => request('DELETE', url),
  };
}

/** The client of `user` on `app` (the short form most tests use). */
export const as = (app: FastifyInstance, user: Caller): Client => client(app, user);

/** One call as `user` (or nobody): the body is sent only when given. */
export function call(
  app: FastifyInstance,
  user: Caller,
  method: Method,
  url: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  return client(app, user).request(method, url, payload);
}

/** One call as `user` that must answer `status` (201 for a POST, else 200); answers the parsed body. */
export async function ok(
  app: FastifyInstance,
  user: Caller,
  method: Method,
  url: string,
  payload?: unknown,
  status = method === 'POST' ? 201 : 200,
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read loosely
): Promise<any> {
  return expectStatus(await client(app, user).request(method, url, payload), status);
}

/**
 * Asserts the status (showing the body when it differs) and, given `code`, that the body is the
 * error envelope with that code and a request id. Answers the parsed body (undefined when empty):
 * loosely typed, so a helper names the document's type of it (`Answer`).
 */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are read loosely
export function expectStatus(response: LightMyRequestResponse, status: number, code?: string): any {
  assert.equal(
    response.statusCode,
    status,
    `expected ${status}, got ${response.statusCode}: ${response.body}`,
  );
  if (code) {
    const body = response.json();
    assert.equal(body.success, false);
    assert.equal(body.error.code, code);
    assert.equal(typeof body.error.requestId, 'string');
  }
  return response.body ? response.json() : undefined;
}

export interface ErrorBody {
  code: string;
  message: string;
  details?: { path: string; message: string }[];
}

/** Asserts the status and that the body is an error with `code`; answers the error. */
export function expectError(response: LightMyRequestResponse, status: number, code: string): ErrorBody {
  const body = expectStatus(response, status);
  assert.equal(body.success, false);
  assert.equal(body.error.code, code);
  return body.error;
}

/** The `{path, message}` details of a 400, as `path: message` strings. */
export function validationDetails(response: LightMyRequestResponse): string[] {
  const body = expectStatus(response, 400, 'VALIDATION_FAILED');
  return body.error.details.map((d: { path: string; message: string }) => `${d.path}: ${d.message}`);
}
