// A running service reached over real HTTP (a cluster's balancer, or one instance's own port),
// in the one shape the test helpers take (`app.inject`): `as`, `ownerWithOrganisation`,
// `createType` and the rest work against it unchanged. Only `inject` (and `db`, for helpers
// that issue a link as the service would) is there; anything else of a Fastify app is not.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Db } from '../../src/db/database.js';

/** Answers a fetch as light-my-request answers an inject, as far as the helpers read it. */
async function asInjectResponse(response: Response): Promise<LightMyRequestResponse> {
  const rawPayload = Buffer.from(await response.arrayBuffer());
  const body = rawPayload.toString('utf8');
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie().map((line) => {
    const [pair = ''] = line.split(';');
    const at = pair.indexOf('=');
    return { name: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim() };
  });
  return {
    statusCode: response.status,
    statusMessage: response.statusText,
    headers,
    rawPayload,
    payload: body,
    body,
    cookies,
    json: () => JSON.parse(body),
  } as unknown as LightMyRequestResponse;
}

/** The service at `baseUrl` (`http://127.0.0.1:<port>`), as the helpers see an app. */
export function remoteApp(baseUrl: string, db?: Db): FastifyInstance {
  const inject = async (options: InjectOptions | string) => {
    const {
      method = 'GET',
      url = '/',
      headers = {},
      payload,
    } = typeof options === 'string' ? { url: options } : options;
    const path = typeof url === 'string' ? url : url.pathname;
    const text =
      payload === undefined || typeof payload === 'string'
        ? payload
        : Buffer.isBuffer(payload)
          ? payload.toString('utf8')
          : JSON.stringify(payload);
    const sent: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = String(value);
    if (text !== undefined && !Object.keys(sent).some((name) => name.toLowerCase() === 'content-type'))
      sent['content-type'] = 'application/json';
    return asInjectResponse(await fetch(`${baseUrl}${path}`, { method, headers: sent, body: text }));
  };
  return { inject, db } as unknown as FastifyInstance;
}
