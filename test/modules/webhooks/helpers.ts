import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import type { SignedInUser } from '../../helpers/app.js';
import { as, expectStatus } from '../../helpers/http.js';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

type Behaviour = (request: IncomingMessage, response: ServerResponse, index: number) => void;

/** An HTTP receiver on loopback: records every request; `behave` decides each answer (204 by default). */
export async function startReceiver() {
  const received: Received[] = [];
  let behaviour: Behaviour = (_request, response) => response.writeHead(204).end();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const index = received.length;
      received.push({
        path: request.url ?? '',
        headers: Object.fromEntries(
          Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
        ),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      behaviour(request, response, index);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    behave(next: Behaviour) {
      behaviour = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * A TCP server on loopback that accepts every connection, reads the request and never writes
 * a byte: each attempt to it hangs until the sender gives up. It notes the path of each
 * request and the most requests it had open at once per path.
 */
export async function startSilentServer() {
  const arrived: string[] = [];
  const open = new Map<string, number>();
  const mostOpen = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    let head = '';
    let path: string | undefined;
    socket.on('data', (chunk: Buffer) => {
      if (path !== undefined) return;
      head += chunk.toString('latin1');
      const line = /^[A-Z]+ (\S+) HTTP\/1\.1\r\n/.exec(head);
      if (!line) return;
      path = line[1]!;
      arrived.push(path);
      open.set(path, (open.get(path) ?? 0) + 1);
      mostOpen.set(path, Math.max(mostOpen.get(path) ?? 0, open.get(path)!));
    });
    socket.on('close', () => {
      sockets.delete(socket);
      if (path !== undefined) open.set(path, open.get(path)! - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrived,
    mostOpen,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type SilentServer = Awaited<ReturnType<typeof startSilentServer>>;

/** Verifies a received request with the standardwebhooks library; answers the event, or throws. */
export function verified(
  secret: string,
  request: Received,
): { id: string; type: string; data: unknown } & Record<string, unknown> {
  return new Webhook(secret).verify(request.body, request.headers) as never;
}

export function webhooksOf(app: FastifyInstance, user: SignedInUser, organisationId: number) {
  const base = `/api/organisations/${organisationId}/webhooks`;
  const call = as(app, user);
  return {
    base,
    create: (body: Record<string, unknown>) => call.post(base, body),
    async created(body: Record<string, unknown>) {
      return expectStatus(await call.post(base, body), 201) as { id: number; secret: string } & Record<
        string,
        unknown
      >;
    },
    list: () => call.get(base),
    get: (id: number) => call.get(`${base}/${id}`),
    patch: (id: number, body: Record<string, unknown>) => call.patch(`${base}/${id}`, body),
    delete: (id: number) => call.delete(`${base}/${id}`),
    rotate: (id: number) => call.post(`${base}/${id}/rotate-secret`),
    test: (id: number) => call.post(`${base}/${id}/test`),
    deliveries: (id: number, query = '') => call.get(`${base}/${id}/deliveries${query}`),
    retry: (id: number, deliveryId: number) => call.post(`${base}/${id}/deliveries/${deliveryId}/retry`),
  };
}
