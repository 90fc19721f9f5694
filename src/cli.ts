// Operator commands: npm run cli -- <command> [args]
import { buildApp } from './app.js';
import { loadConfigOrExit } from './config.js';
import { plan as planSchema, registerBody } from './modules/auth/schemas.js';
import { PRIVACY_USAGE, runPrivacyCommand } from './modules/privacy/cli.js';

const USAGE = `Usage:
  npm run cli -- user:create EMAIL PASSWORD NAME
  npm run cli -- user:set-plan EMAIL STORE|ENTERPRISE
  npm run cli -- user:set-admin EMAIL true|false
${PRIVACY_USAGE}`;

const [command, ...args] = process.argv.slice(2);
const app = await buildApp(loadConfigOrExit(), { logger: false });
const { auth } = app.services;
try {
  switch (command) {
    case 'user:create': {
      const [email, password, ...name] = args;
      // The same rules as POST /api/auth/register.
      const parsed = registerBody.safeParse({ email, password, name: name.join(' ') });
      if (!parsed.success) {
        const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
        throw new Error(`${problems.join('; ')}\n${USAGE}`);
      }
      const user = await auth.createUser(parsed.data);
      console.log(`Created user ${user.id} <${user.email}>`);
      break;
    }
    case 'user:set-plan': {
      const [email, plan] = args;
      const parsed = planSchema.safeParse(plan);
      if (!email || !parsed.success) throw new Error(USAGE);
      const user = await auth.updateUserByEmail(email.toLowerCase(), { plan: parsed.data });
      console.log(`User ${user.email} is now on plan ${user.plan}`);
      break;
    }
    case 'user:set-admin': {
      const [email, flag] = args;
      if (!email || (flag !== 'true' && flag !== 'false')) throw new Error(USAGE);
      const user = await auth.updateUserByEmail(email.toLowerCase(), { isGlobalAdmin: flag === 'true' });
      console.log(`User ${user.email} global admin: ${user.isGlobalAdmin}`);
      break;
    }
    case 'privacy:requests':
    case 'privacy:show':
    case 'privacy:process':
    case 'privacy:reject':
      await runPrivacyCommand(app, command, args, USAGE);
      break;
    default:
      throw new Error(USAGE);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
} finally {
  await app.close();
}
