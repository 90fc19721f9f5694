import { type Executor, inTransaction } from '../../db/database.js';
import { DomainError } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { type PrivacyContext, subjectOf } from './context.js';
import { createPrivacyRepo, type RequestRow, toRequest } from './repo.js';

/** Erasure left rows that still hold the person's data: a declaration is wrong; nothing is committed. */
export class ErasureIncompleteError extends Error {
  constructor(readonly remaining: Record<string, number>) {
    super(`Erasure left personal data in: ${Object.keys(remaining).join(', ')}`);
  }
}

/** The job's handler: works one in-progress request (serves an access or export, or erases). */
export type ProcessRequest = (job: { requestId: number }) => Promise<void>;

/** Marks an in-progress request completed, in `trx`; undefined when it no longer is in progress. */
const complete = (trx: Executor, request: RequestRow, now: string) =>
  createPrivacyRepo(trx).transition(request.id, ['in_progress'], 'completed', now, { completedAt: now });

/** Writes `privacy.request.completed` with the completion. */
const announce = (
  { events }: PrivacyContext,
  trx: Executor,
  now: string,
  userId: number | null,
  data: unknown,
) =>
  events.append(trx, [
    { type: 'privacy.request.completed', occurredAt: now, organisationId: null, userId, data },
  ]);

/** Access and export requests: the person downloads both themselves; the job records it was served. */
async function serve(ctx: PrivacyContext, request: RequestRow): Promise<void> {
  await inTransaction(ctx.db.kysely, async (trx) => {
    const r = createPrivacyRepo(trx);
    const now = nowIso();
    const completed = await complete(trx, request, now);
    if (!completed) return;
    // The person's own feed tells them their report or export is ready.
    await announce(ctx, trx, now, completed.userId, toRequest(completed));
    await r.audit({
      requestId: request.id,
      action: request.requestType === 'export' ? 'export_served' : 'access_served',
      actor: 'job',
      now,
    });
  });
}

/**
 * Erases the person in one transaction across every module: the request is marked
 * completed first (so a concurrent reject or a second run finds nothing to do), then
 * each declaration erases in reverse registry order, then every declaration is asked
 * again what it still holds; anything left rolls the whole erasure back. The audit
 * row keeps row counts by table, nothing personal.
 */
async function erase(ctx: PrivacyContext, request: RequestRow): Promise<void> {
  const { db, declarations } = ctx;
  const subject =
    request.userId === null
      ? null
      : await subjectOf(ctx, request.userId).catch((error: unknown) => {
          if (error instanceof DomainError && error.code === 'NOT_FOUND') return null;
          throw error;
        });
  await inTransaction(db.kysely, async (trx) => {
    const r = createPrivacyRepo(trx);
    const now = nowIso();
    const completed = await complete(trx, request, now);
    if (!completed) return;
    // The person is gone: the event names nobody and carries none of the request's text.
    const { id, requestType, status, createdAt, completedAt } = completed;
    await announce(ctx, trx, now, null, { id, requestType, status, createdAt, completedAt });
    if (!subject) {
      // The account is already gone (an earlier request erased it): nothing is left to do.
      await r.audit({
        requestId: request.id,
        action: 'erased',
        actor: 'job',
        details: { alreadyErased: true },
        now,
      });
      return;
    }
    const rowsChanged: Record<string, number> = {};
    for (const declaration of [...declarations].reverse()) {
      for (const [table, count] of Object.entries(await declaration.erase(trx, subject, now)))
        if (count > 0) rowsChanged[table] = (rowsChanged[table] ?? 0) + count;
    }
    const remaining: Record<string, number> = {};
    for (const declaration of declarations) {
      for (const [table, count] of Object.entries(await declaration.holdings(trx, subject)))
        if (count > 0) remaining[table] = count;
    }
    if (Object.keys(remaining).length > 0) throw new ErasureIncompleteError(remaining);
    await r.audit({
      requestId: request.id,
      action: 'erased',
      actor: 'job',
      details: { rowsChanged, verified: true },
      now,
    });
  });
}

export function createRequestProcessing(ctx: PrivacyContext): ProcessRequest {
  const { repo } = ctx;
  return async function process({ requestId }) {
    const request = await repo.findRequest(requestId);
    // Cancelled, rejected or already completed (a retried job): nothing to do.
    if (request?.status !== 'in_progress') return;
    try {
      if (request.requestType === 'delete') await erase(ctx, request);
      else await serve(ctx, request);
    } catch (error) {
      // The error's class only: a database message may quote the person's data.
      await repo.audit({
        requestId,
        action: 'failed',
        actor: 'job',
        details: { error: error instanceof Error ? error.constructor.name : 'Error' },
        now: nowIso(),
      });
      throw error;
    }
  };
}
