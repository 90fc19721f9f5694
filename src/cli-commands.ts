// The operator's commands (npm run cli -- <command> [args]), run on a built app: they print for a
// person at a terminal and throw on misuse (src/cli.ts turns that into exit status 1).
import type { FastifyInstance } from 'fastify';
import { plan as planSchema, registerBody } from './modules/auth/schemas.js';
import { PRIVACY_USAGE, runPrivacyCommand } from './modules/privacy/cli.js';

export const USAGE = `Usage:
  npm run cli -- user:create EMAIL PASSWORD NAME
  npm run cli -- user:set-plan EMAIL STORE|ENTERPRISE
  npm run cli -- user:set-admin EMAIL true|false
${PRIVACY_USAGE}`;

async function createUser(
  app: FastifyInstance,
  [email, password, ...name]: readonly string[],
): Promise<void> {
  // The same rules as POST /api/auth/register.
  const parsed = registerBody.safeParse({ email, password, name: name.join(' ') });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`${problems.join('; ')}\n${USAGE}`);
  }
  const user = await app.services.auth.createUser(parsed.data);
  console.log(`Created user ${user.id} <${user.email}>`);
}

async function setPlan(app: FastifyInstance, [email, plan]: readonly string[]): Promise<void> {
  const parsed = planSchema.safeParse(plan);
  if (!email || !parsed.success) throw new Error(USAGE);
  const user = await app.services.auth.updateUserByEmail(email.toLowerCase(), { plan: parsed.data });
  console.log(`User ${user.email} is now on plan ${user.plan}`);
}

async function setAdmin(app: FastifyInstance, [email, flag]: readonly string[]): Promise<void> {
  if (!email || (flag !== 'true' && flag !== 'false')) throw new Error(USAGE);
  const user = await app.services.auth.updateUserByEmail(email.toLowerCase(), {
    isGlobalAdmin: flag === 'true',
  });
  console.log(`User ${user.email} global admin: ${user.isGlobalAdmin}`);
}

export async function runCommand(
  app: FastifyInstance,
  command: string,
  args: readonly string[],
): Promise<void> {
  switch (command) {
    case 'user:create':
      return createUser(app, args);
    case 'user:set-plan':
      return setPlan(app, args);
    case 'user:set-admin':
      return setAdmin(app, args);
    case 'privacy:requests':
    case 'privacy:show':
    case 'privacy:process':
    case 'privacy:reject':
      return runPrivacyCommand(app, command, args, USAGE);
    default:
      throw new Error(USAGE);
  }
}
