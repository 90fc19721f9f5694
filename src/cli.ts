// Operator commands: npm run cli -- <command> [args] (src/cli-commands.ts).
import { buildApp } from './app.js';
import { runCommand } from './cli-commands.js';
import { loadConfigOrExit } from './config.js';

const [command = '', ...args] = process.argv.slice(2);
const app = await buildApp(loadConfigOrExit(), { logger: false });
try {
  await runCommand(app, command, args);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
} finally {
  await app.close();
}
