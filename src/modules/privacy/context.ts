import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Actor } from '../../lib/actor.js';
import { forbidden } from '../../lib/errors.js';
import type { DataSubject, PrivacyDeclaration } from '../../privacy/declaration.js';
import type { AuthService } from '../auth/service.js';
import type { EventWriter } from '../outbox/service.js';
import type { PrivacyRepo, RequestFilter } from './repo.js';
import type { ListRequestsQuery } from './schemas.js';

/** The job that works one data-subject request (queued by the operator's `privacy:process`). */
export const PROCESS_REQUEST_JOB = 'privacy.process-request';

export interface PrivacyServiceDeps {
  db: Db;
  jobs: Pick<JobQueue, 'send'>;
  /** Writes privacy.request.completed with the completion. */
  events: EventWriter;
  users: Pick<AuthService, 'me'>;
  /** What every module holds about a person, in export order (src/privacy-declarations.ts). */
  declarations: readonly PrivacyDeclaration[];
}

/** What every privacy use case is built from: the service's dependencies and its repo. */
export interface PrivacyContext extends PrivacyServiceDeps {
  repo: PrivacyRepo;
}

export function requirePerson(actor: Actor) {
  // An agent may act for its owner, but never over the owner's data-protection rights.
  if (actor.agent) throw forbidden('Agents cannot use privacy routes');
}

export async function subjectOf({ users }: PrivacyContext, userId: number): Promise<DataSubject> {
  const user = await users.me(userId);
  return { userId, email: user.email.toLowerCase(), name: user.name };
}

export const filterOf = (query: ListRequestsQuery, userId?: number): RequestFilter => ({
  ...(userId === undefined ? {} : { userId }),
  ...(query.statuses ? { statuses: query.statuses } : {}),
  ...(query.requestTypes ? { requestTypes: query.requestTypes } : {}),
  ...(query.search ? { search: query.search } : {}),
  offset: query.offset,
  limit: query.limit,
});
