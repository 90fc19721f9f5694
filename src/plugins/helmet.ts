import helmet from '@fastify/helmet';
import fp from 'fastify-plugin';

export default fp(
  async (app) => {
    // The API serves JSON; the only pages (API docs, honeypot) are same-origin.
    await app.register(helmet, { global: true, crossOriginResourcePolicy: { policy: 'same-site' } });
  },
  { name: 'helmet' },
);
