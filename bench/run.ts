// npm run bench -- <name>: runs bench/<name>.ts. Benchmarks are not tests; CI never runs them.
import { readdirSync } from 'node:fs';

const name = process.argv[2];
const available = readdirSync(new URL('.', import.meta.url))
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
  .map((file) => file.replace(/\.ts$/, ''));
if (!name || !available.includes(name)) {
  console.error(`Usage: npm run bench -- <${available.join('|')}>`);
  process.exit(1);
}
await import(`./${name}.ts`);
