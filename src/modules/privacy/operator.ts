import { conflict, notFound, validationFailed } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { filterOf, PROCESS_REQUEST_JOB, type PrivacyContext } from './context.js';
import type { ProcessRequest } from './processing.js';
import { type PrivacyRepo, type RequestRow, toRequest } from './repo.js';
import { type DataSubjectRequest, type ListRequestsQuery, REASON_MAX } from './schemas.js';
import type { DataSubjectRequestStatus } from './tables.js';

/** A request as the operator sees it: with the person's id (null once erased). */
export interface OperatorRequest extends DataSubjectRequest {
  userId: number | null;
  startedAt: string | null;
}

/** One request for `privacy:show`: whose it is (while the account exists) and its audit trail. */
export interface OperatorRequestDetail {
  request: OperatorRequest;
  account: { id: number; email: string; name: string } | null;
  audit: Awaited<ReturnType<PrivacyRepo['auditOf']>>;
}

/** Operator commands (CLI): the queue of every person's requests. */
export interface PrivacyOperator {
  /** Every person's requests, filtered and paged. */
  list(query: ListRequestsQuery): Promise<{ items: OperatorRequest[]; total: number }>;
  /** The request, whose it is (while the account exists) and its audit trail. */
  show(id: number): Promise<OperatorRequestDetail>;
  /**
   * Starts a pending request (or runs an in-progress one again, after a failure):
   * `in_progress` now, worked by the job queue.
   */
  process(id: number): Promise<OperatorRequest>;
  /** Rejects a request not yet completed; the reason is shown to the person. */
  reject(id: number, reason: string): Promise<OperatorRequest>;
  /** The job handler itself, for tests and for re-running by hand. */
  run: ProcessRequest;
}

async function requireRequest(repo: PrivacyRepo, id: number): Promise<RequestRow> {
  const row = await repo.findRequest(id);
  if (!row) throw notFound('Request');
  return row;
}

const toOperatorRequest = (row: RequestRow): OperatorRequest => ({
  ...toRequest(row),
  userId: row.userId,
  startedAt: row.startedAt,
});

/** Starts a pending request, or runs an in-progress one again: audited, then queued for the job. */
async function startProcessing({ repo, jobs }: PrivacyContext, id: number): Promise<OperatorRequest> {
  const existing = await requireRequest(repo, id);
  const now = nowIso();
  let row: RequestRow | undefined = existing;
  if (existing.status === 'pending') {
    row = await repo.transition(id, ['pending'], 'in_progress', now, { startedAt: now });
  }
  if (row?.status !== 'in_progress')
    throw conflict(
      'CONFLICT',
      `Request ${id} is ${row?.status ?? existing.status}; only pending or in-progress requests are processed`,
    );
  await repo.audit({
    requestId: id,
    action: existing.status === 'pending' ? 'started' : 'restarted',
    actor: 'operator',
    now,
  });
  await jobs.send(PROCESS_REQUEST_JOB, { requestId: id });
  return toOperatorRequest(row);
}

export function createOperator(ctx: PrivacyContext, run: ProcessRequest): PrivacyOperator {
  const { repo, users } = ctx;
  return {
    async list(query) {
      const { rows, total } = await repo.listRequests(filterOf(query));
      return { items: rows.map(toOperatorRequest), total };
    },

    async show(id) {
      const row = await requireRequest(repo, id);
      const account = row.userId === null ? null : await users.me(row.userId).catch(() => null);
      return {
        request: toOperatorRequest(row),
        account: account ? { id: account.id, email: account.email, name: account.name } : null,
        audit: await repo.auditOf(id),
      };
    },

    process: (id) => startProcessing(ctx, id),

    async reject(id, reason) {
      const text = reason.trim();
      if (!text || text.length > REASON_MAX)
        throw validationFailed(`A reason of 1..${REASON_MAX} characters is required`);
      const existing = await requireRequest(repo, id);
      const now = nowIso();
      const from: DataSubjectRequestStatus[] = ['pending', 'in_progress'];
      const row = await repo.transition(id, from, 'rejected', now, { resolution: text, completedAt: now });
      if (!row)
        throw conflict('CONFLICT', `Request ${id} is ${existing.status}; it can no longer be rejected`);
      await repo.audit({ requestId: id, action: 'rejected', actor: 'operator', now });
      return toOperatorRequest(row);
    },

    run,
  };
}
