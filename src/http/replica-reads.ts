import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `replica`: with a read replica (DATABASE_READ_URL), the handler's lone reads may be
     * served by it, unless the caller wrote something the replica has not replayed yet.
     * Declared on availability, lists and feeds; never on a route that books or writes.
     */
    reads?: 'replica';
  }
}

/**
 * How long a caller's last write is remembered: their reads wait for the replica to replay
 * it for at most this long (a replica further behind than this is broken, not lagging).
 */
export const LAST_WRITE_TTL_SECONDS = 3_600;

/** A wrote flag per request, set by the database layer at the handler's first write. */
const wroteIn = new WeakSet<FastifyRequest>();

/**
 * Read-your-writes over a streaming replica. Every handler runs under the database's routing
 * (src/db/read-replica.ts): a handler that wrote (any statement but a lone read) records the primary's
 * WAL position for its caller in the ephemeral store (Redis with several instances); a route
 * marked `config: { reads: 'replica' }` reads from the replica unless the caller's recorded
 * position is past what the replica has replayed. The guards' credential reads run before the
 * handler, on the primary: a revoked key stops at once; a handler that resolves a credential of
 * its own (a feed URL, a public token) reads it in `onPrimary` (src/db/read-replica.ts). Without
 * a replica this adds nothing.
 */
export const replicaReads = fp(async (app: FastifyInstance) => {
  const replica = app.db.replica;
  if (!replica) return;
  const { store } = app;
  /** The caller: the person a credential names, else the client's address (public pages, feeds). */
  const lastWriteKey = (request: FastifyRequest) =>
    `replica:last-write:${request.actor ? `user:${request.actor.userId}` : `ip:${request.ip}`}`;

  const caughtUp = async (request: FastifyRequest): Promise<boolean> => {
    const position = await store.read(lastWriteKey(request));
    return position === undefined || replica.hasReplayed(position);
  };

  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    const servedByReplica = route.config?.reads === 'replica';
    route.handler = function routedHandler(request, reply) {
      return replica.run(
        {
          ...(servedByReplica ? { replicaServes: () => caughtUp(request) } : {}),
          onWrite: () => wroteIn.add(request),
        },
        () => handler.call(this, request, reply),
      );
    };
  });

  app.addHook('onSend', async (request, reply, payload) => {
    // Whatever the status (a refusal may follow writes that committed), but 503: the primary was
    // out of reach, and asking it its position would keep the answer waiting as long again.
    if (!wroteIn.has(request) || reply.statusCode === 503) return payload;
    try {
      await store.keepGreatest(
        lastWriteKey(request),
        await replica.primaryPosition(),
        LAST_WRITE_TTL_SECONDS,
      );
    } catch (error) {
      // The write stands; until the store answers again, reads that cannot ask it go to the primary.
      request.log.warn({ err: error }, 'could not record the last write of the caller for the read replica');
    }
    return payload;
  });
});
