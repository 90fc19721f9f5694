// The floor every benchmark is measured beside: a bare Fastify 5 hello-world,
// plain JavaScript so nothing but Fastify runs. PORT from the environment.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
