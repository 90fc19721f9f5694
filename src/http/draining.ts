declare module 'fastify' {
  interface FastifyInstance {
    /** Whether this instance is shutting down: its readiness probe answers 503 from then on. */
    readonly drain: Drain;
  }
}

/**
 * The first step of a graceful shutdown (src/server.ts): the instance still serves everything,
 * but says it is not ready, so a load balancer's health check takes it out of rotation before
 * it stops listening.
 */
export interface Drain {
  readonly started: boolean;
  start(): void;
}

export function createDrain(): Drain {
  let started = false;
  return {
    get started() {
      return started;
    },
    start() {
      started = true;
    },
  };
}
