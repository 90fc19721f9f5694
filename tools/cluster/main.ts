import { parseArgs } from 'node:util';
import { startCluster } from './cluster.js';

// `npm run cluster -- --instances N [--port P]` (development): N instances of the built
// service on one PostgreSQL and Redis (DATABASE_URL, REDIS_URL) behind HAProxy on port P;
// SIGINT or SIGTERM stops them all.
const USAGE = 'Usage: npm run cluster -- --instances N [--port P]';

function parseOptions(): { instances: number; port: number } {
  const { values } = parseArgs({
    options: { instances: { type: 'string' }, port: { type: 'string', default: '8080' } },
  });
  const instances = Number(values.instances);
  const port = Number(values.port);
  if (!Number.isInteger(instances) || instances < 1 || instances > 32)
    throw new Error(`--instances must be a whole number from 1 to 32\n${USAGE}`);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`--port must be a port number\n${USAGE}`);
  return { instances, port };
}

try {
  const options = parseOptions();
  const cluster = await startCluster({ ...options, env: process.env, logs: true });
  const pids = cluster.instances.map(
    (instance) => `${instance.name} pid ${instance.pid} port ${instance.port}`,
  );
  console.log(`${cluster.instances.length} instances behind HAProxy at ${cluster.url} (${pids.join(', ')})`);
  for (const { provider, url } of cluster.providers)
    console.log(`No ${provider} provider configured: every instance uses the bundled emulator at ${url}`);
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      console.log('stopping the cluster');
      void cluster.stop().then(() => process.exit(0));
    });
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
