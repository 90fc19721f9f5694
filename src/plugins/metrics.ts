import fp from 'fastify-plugin';

/** Request count and duration by route template (never the raw URL: ids would explode the label set). */
export default fp(
  async (app) => {
    app.addHook('onResponse', async (request, reply) => {
      const labels = {
        route: request.routeOptions.url ?? 'unmatched',
        method: request.method,
        status_code: String(reply.statusCode),
      };
      app.metrics.httpRequests.inc(labels);
      app.metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    });
  },
  { name: 'metrics' },
);
