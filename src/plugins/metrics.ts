import fp from 'fastify-plugin';

/** Request count and duration by route template (never the raw URL: ids would explode the label set). */
export default fp(
  async (app) => {
    const { httpRequests, httpDuration } = app.metrics;
    // prom-client hashes the label object on every call; the children per label set are kept instead.
    const children = new Map<
      string,
      { count: { inc(): void }; duration: { observe(value: number): void } }
    >();
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      const key = `${route}\u0000${request.method}\u0000${reply.statusCode}`;
      let child = children.get(key);
      if (!child) {
        const labels = { route, method: request.method, status_code: String(reply.statusCode) };
        child = { count: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
        children.set(key, child);
      }
      child.count.inc();
      child.duration.observe(reply.elapsedTime / 1000);
      done();
    });
  },
  { name: 'metrics' },
);
