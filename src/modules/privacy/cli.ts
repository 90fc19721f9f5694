import type { FastifyInstance } from 'fastify';
import { positiveId } from '../../http/schemas.js';
import { listRequestsQuery } from './schemas.js';
import type { OperatorRequest } from './service.js';

export const PRIVACY_USAGE = `  npm run cli -- privacy:requests [--statuses=a,b] [--requestTypes=a,b] [--search=TEXT] [--offset=N] [--limit=N]
  npm run cli -- privacy:show ID
  npm run cli -- privacy:process ID
  npm run cli -- privacy:reject ID REASON`;

/** How long `privacy:process` waits for the job before leaving it to the queue. */
const PROCESS_WAIT_MS = 120_000;

const line = (r: OperatorRequest) =>
  [r.id, r.requestType, r.status, r.userId ?? '(erased)', r.createdAt, r.updatedAt].join('\t');

function idOf(text: string | undefined, usage: string): number {
  const parsed = positiveId.safeParse(text);
  if (!parsed.success) throw new Error(`ID must be a positive integer\n${usage}`);
  return parsed.data;
}

/** `--name=value` and `--name value` options, for the same filters as the HTTP list. */
function options(args: readonly string[]): Record<string, string | string[]> {
  const found: Record<string, string[]> = {};
  for (let i = 0; i < args.length; i += 1) {
    const match = /^--([A-Za-z]+)(?:=(.*))?$/.exec(args[i]!);
    if (!match) throw new Error(`Unexpected argument ${args[i]}`);
    const value = match[2] ?? args[++i];
    if (value === undefined) throw new Error(`--${match[1]} needs a value`);
    const name = match[1]!;
    found[name] = [...(found[name] ?? []), value];
  }
  // A repeated option is a list (statuses, requestTypes); a single one its value.
  return Object.fromEntries(Object.entries(found).map(([k, v]) => [k, v.length === 1 ? v[0]! : v]));
}

type Privacy = FastifyInstance['services']['privacy'];

/** `privacy:requests`: the requests the filters select, one per line. */
async function listRequests(privacy: Privacy, args: readonly string[], usage: string): Promise<void> {
  const parsed = listRequestsQuery.safeParse(options(args));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`${problems.join('; ')}\n${usage}`);
  }
  const { items, total } = await privacy.operator.list(parsed.data);
  console.log(['id', 'type', 'status', 'user', 'created', 'updated'].join('\t'));
  for (const item of items) console.log(line(item));
  console.log(`${items.length} of ${total} request(s)`);
}

/** `privacy:show`: one request, its account and its audit trail. */
async function showRequest(privacy: Privacy, id: number): Promise<void> {
  const { request, account, audit } = await privacy.operator.show(id);
  console.log(`Request ${request.id}: ${request.requestType}, ${request.status}`);
  console.log(`  user: ${account ? `${account.id} <${account.email}> ${account.name}` : '(erased)'}`);
  console.log(
    `  created ${request.createdAt}, started ${request.startedAt ?? '-'}, completed ${request.completedAt ?? '-'}`,
  );
  if (request.reason) console.log(`  reason: ${request.reason}`);
  if (request.resolution) console.log(`  resolution: ${request.resolution}`);
  console.log('  audit:');
  for (const entry of audit)
    console.log(`    ${entry.createdAt} ${entry.action} by ${entry.actor} ${JSON.stringify(entry.details)}`);
}

/** `privacy:process`: starts a request's job and waits (up to PROCESS_WAIT_MS) for its outcome. */
async function processRequest(app: FastifyInstance, id: number): Promise<void> {
  const { privacy } = app.services;
  // Workers start with the app: on PostgreSQL any instance (this one included) takes the job.
  await app.ready();
  await privacy.operator.process(id);
  console.log(`Request ${id} is in progress`);
  await app.jobs.idle();
  const until = Date.now() + PROCESS_WAIT_MS;
  let shown = await privacy.operator.show(id);
  while (shown.request.status === 'in_progress' && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    shown = await privacy.operator.show(id);
  }
  const { request, audit } = shown;
  if (request.status === 'in_progress') {
    const failed = audit.filter((entry) => entry.action === 'failed').length;
    throw new Error(
      `Request ${id} is still in progress${failed ? ` (${failed} failed attempt(s); see privacy:show ${id})` : ''}`,
    );
  }
  const last = audit[audit.length - 1];
  console.log(
    `Request ${id} is ${request.status}${last ? `: ${last.action} ${JSON.stringify(last.details)}` : ''}`,
  );
}

/** The operator's privacy commands; they print for a person at a terminal and throw on misuse. */
export async function runPrivacyCommand(
  app: FastifyInstance,
  command: string,
  args: readonly string[],
  usage: string,
): Promise<void> {
  const { privacy } = app.services;
  switch (command) {
    case 'privacy:requests':
      return listRequests(privacy, args, usage);
    case 'privacy:show':
      return showRequest(privacy, idOf(args[0], usage));
    case 'privacy:process':
      return processRequest(app, idOf(args[0], usage));
    case 'privacy:reject': {
      const [id, ...reason] = args;
      const rejected = await privacy.operator.reject(idOf(id, usage), reason.join(' '));
      console.log(`Request ${rejected.id} is rejected`);
      return;
    }
    default:
      throw new Error(usage);
  }
}
