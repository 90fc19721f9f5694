import type { Readable } from 'node:stream';
import { type Db, type Executor, inTransaction } from '../../db/database.js';
import { InvalidCursorError } from '../../db/keyset.js';
import type { DataSubjectRequestStatus } from '../../db/tables/privacy.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Actor } from '../../lib/actor.js';
import {
  conflict,
  DomainError,
  forbidden,
  invalidCursor,
  invalidFields,
  notFound,
  validationFailed,
} from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { DataSubject, Delegates, PrivacyDeclaration } from '../../privacy/declaration.js';
import type { AuthService } from '../auth/service.js';
import type { EventWriter } from '../outbox/service.js';
import { exportDocument, exportStream } from './export.js';
import { createPrivacyRepo, type RequestFilter, type RequestRow, toRequest } from './repo.js';
import {
  type AcceptPolicyInput,
  type AccessReport,
  type Consent,
  type ConsentHistoryQuery,
  type CreateRequestInput,
  type DataSubjectRequest,
  type ListRequestsQuery,
  type PolicyAcceptance,
  REASON_MAX,
  type UpsertConsentInput,
} from './schemas.js';

/** The job that works one data-subject request (queued by the operator's `privacy:process`). */
export const PROCESS_REQUEST_JOB = 'privacy.process-request';
/** Longest user agent kept with a consent: enough to recognise a browser, no more. */
const USER_AGENT_MAX = 512;

/** Where a consent change came from, recorded with it. */
export interface RequestContext {
  ip: string | null;
  userAgent: string | null;
}

/** A request as the operator sees it: with the person's id (null once erased). */
export interface OperatorRequest extends DataSubjectRequest {
  userId: number | null;
  startedAt: string | null;
}

/** Erasure left rows that still hold the person's data: a declaration is wrong; nothing is committed. */
export class ErasureIncompleteError extends Error {
  constructor(readonly remaining: Record<string, number>) {
    super(`Erasure left personal data in: ${Object.keys(remaining).join(', ')}`);
  }
}

const toOperatorRequest = (row: RequestRow): OperatorRequest => ({
  ...toRequest(row),
  userId: row.userId,
  startedAt: row.startedAt,
});

function requirePerson(actor: Actor) {
  // An agent may act for its owner, but never over the owner's data-protection rights.
  if (actor.agent) throw forbidden('Agents cannot use privacy routes');
}

export type PrivacyService = ReturnType<typeof createPrivacyService>;

export function createPrivacyService({
  db,
  jobs,
  users,
  declarations,
  events,
}: {
  db: Db;
  jobs: JobQueue;
  /** Writes privacy.request.completed with the completion. */
  events: EventWriter;
  users: Pick<AuthService, 'me'>;
  /** What every module holds about a person, in export order (src/privacy-declarations.ts). */
  declarations: readonly PrivacyDeclaration[];
}) {
  const repo = createPrivacyRepo(db.kysely);

  async function subjectOf(userId: number): Promise<DataSubject> {
    const user = await users.me(userId);
    return { userId, email: user.email.toLowerCase(), name: user.name };
  }

  async function requireOwnRequest(actor: Actor, id: number): Promise<RequestRow> {
    const row = await repo.findRequest(id);
    // Another person's request answers exactly like an absent one.
    if (!row || row.userId !== actor.userId) throw notFound('Request');
    return row;
  }

  async function requireRequest(id: number): Promise<RequestRow> {
    const row = await repo.findRequest(id);
    if (!row) throw notFound('Request');
    return row;
  }

  const filterOf = (query: ListRequestsQuery, userId?: number): RequestFilter => ({
    ...(userId === undefined ? {} : { userId }),
    ...(query.statuses ? { statuses: query.statuses } : {}),
    ...(query.requestTypes ? { requestTypes: query.requestTypes } : {}),
    ...(query.search ? { search: query.search } : {}),
    offset: query.offset,
    limit: query.limit,
  });

  /** Marks an in-progress request completed, in `trx`; undefined when it no longer is in progress. */
  const complete = (trx: Executor, request: RequestRow, now: string) =>
    createPrivacyRepo(trx).transition(request.id, ['in_progress'], 'completed', now, { completedAt: now });
  /** Writes `privacy.request.completed` with the completion. */
  const announce = (trx: Executor, now: string, userId: number | null, data: unknown) =>
    events.append(trx, [
      { type: 'privacy.request.completed', occurredAt: now, organisationId: null, userId, data },
    ]);

  /** Access and export requests: the person downloads both themselves; the job records it was served. */
  async function serve(request: RequestRow): Promise<void> {
    await inTransaction(db.kysely, async (trx) => {
      const r = createPrivacyRepo(trx);
      const now = nowIso();
      const completed = await complete(trx, request, now);
      if (!completed) return;
      // The person's own feed tells them their report or export is ready.
      await announce(trx, now, completed.userId, toRequest(completed));
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
  async function erase(request: RequestRow): Promise<void> {
    const subject =
      request.userId === null
        ? null
        : await subjectOf(request.userId).catch((error: unknown) => {
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
      await announce(trx, now, null, { id, requestType, status, createdAt, completedAt });
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

  async function process({ requestId }: { requestId: number }): Promise<void> {
    const request = await repo.findRequest(requestId);
    // Cancelled, rejected or already completed (a retried job): nothing to do.
    if (request?.status !== 'in_progress') return;
    try {
      if (request.requestType === 'delete') await erase(request);
      else await serve(request);
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
  }

  jobs.work<{ requestId: number }>(PROCESS_REQUEST_JOB, process, { retryLimit: 3, retryDelaySeconds: 10 });

  return {
    /** What the service holds about the caller, by category, with consents and who can act for them. */
    async accessReport(actor: Actor): Promise<AccessReport> {
      requirePerson(actor);
      const subject = await subjectOf(actor.userId);
      const categories: AccessReport['categories'] = [];
      const actingForYou: Delegates = { agents: [], oauthClients: [] };
      for (const declaration of declarations) {
        const holdings = await declaration.holdings(db.kysely, subject);
        for (const category of declaration.categories) {
          const tables = Object.entries(declaration.tables).flatMap(([table, about]) =>
            about.kind !== 'none' && about.category === category.id
              ? [
                  {
                    table,
                    count: holdings[table] ?? 0,
                    erasure: about.erasure,
                    linked: about.kind === 'personal',
                  },
                ]
              : [],
          );
          categories.push({
            ...category,
            module: declaration.module,
            linkedToAccount: tables.every((t) => t.linked),
            count: tables.reduce((sum, t) => sum + t.count, 0),
            tables: tables.map(({ linked: _linked, ...t }) => t),
          });
        }
        const delegates = await declaration.delegates?.(db.kysely, subject);
        actingForYou.agents.push(...(delegates?.agents ?? []));
        actingForYou.oauthClients.push(...(delegates?.oauthClients ?? []));
      }
      return {
        userId: actor.userId,
        generatedAt: nowIso(),
        categories,
        consents: await repo.currentConsents(actor.userId),
        policyAcceptance: (await repo.latestAcceptance(actor.userId)) ?? null,
        actingForYou,
      };
    },

    /** Every personal record of the caller, as a JSON byte stream read from the database on demand. */
    async export(actor: Actor): Promise<{ filename: string; stream: Readable }> {
      requirePerson(actor);
      const subject = await subjectOf(actor.userId);
      const generatedAt = nowIso();
      return {
        filename: `privacy-export-${actor.userId}-${generatedAt.slice(0, 10)}.json`,
        stream: exportStream(exportDocument(db.kysely, declarations, subject, generatedAt)),
      };
    },

    async createRequest(actor: Actor, input: CreateRequestInput): Promise<DataSubjectRequest> {
      requirePerson(actor);
      const subject = await subjectOf(actor.userId);
      const confirmEmail = input.confirmEmail ? input.confirmEmail : null;
      if (confirmEmail !== null && confirmEmail !== subject.email)
        throw invalidFields([{ path: 'confirmEmail', message: "does not match your account's email" }]);
      const now = nowIso();
      const row = await repo.insertRequest({
        userId: actor.userId,
        requestType: input.requestType,
        reason: input.reason?.trim() ? input.reason.trim() : null,
        confirmEmail,
        now,
      });
      await repo.audit({
        requestId: row.id,
        action: 'created',
        actor: 'person',
        details: { requestType: row.requestType },
        now,
      });
      return toRequest(row);
    },

    async listRequests(
      actor: Actor,
      query: ListRequestsQuery,
    ): Promise<{ items: DataSubjectRequest[]; total: number; offset: number; limit: number }> {
      requirePerson(actor);
      const { rows, total } = await repo.listRequests(filterOf(query, actor.userId));
      return { items: rows.map(toRequest), total, offset: query.offset, limit: query.limit };
    },

    async getRequest(actor: Actor, id: number): Promise<DataSubjectRequest> {
      requirePerson(actor);
      return toRequest(await requireOwnRequest(actor, id));
    },

    /** The person withdraws a request nobody has started on (409 in any other state). */
    async cancelRequest(actor: Actor, id: number): Promise<DataSubjectRequest> {
      requirePerson(actor);
      const existing = await requireOwnRequest(actor, id);
      const now = nowIso();
      const row = await repo.transition(id, ['pending'], 'cancelled', now, { completedAt: now });
      if (!row)
        throw conflict('CONFLICT', `Only a pending request can be cancelled; this one is ${existing.status}`);
      await repo.audit({ requestId: id, action: 'cancelled', actor: 'person', now });
      return toRequest(row);
    },

    async listConsents(actor: Actor): Promise<Consent[]> {
      requirePerson(actor);
      return repo.currentConsents(actor.userId);
    },

    async consentHistory(
      actor: Actor,
      query: ConsentHistoryQuery,
    ): Promise<{ items: Consent[]; nextCursor: string | null }> {
      requirePerson(actor);
      try {
        return await repo.consentHistory(actor.userId, query);
      } catch (error) {
        if (error instanceof InvalidCursorError) throw invalidCursor();
        throw error;
      }
    },

    /** Appends a decision to the history; the newest one per type is the current decision. */
    async decideConsent(
      actor: Actor,
      consentType: Consent['consentType'],
      input: UpsertConsentInput,
      context: RequestContext,
    ): Promise<Consent> {
      requirePerson(actor);
      return repo.insertConsent({
        userId: actor.userId,
        consentType,
        decision: input.decision,
        policyVersion: input.policyVersion,
        source: input.source ?? null,
        ipAddress: context.ip,
        userAgent: context.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
        metadata: input.metadata ? JSON.stringify(input.metadata) : null,
        now: nowIso(),
      });
    },

    /**
     * Records an acceptance of the privacy policy, and the same moment as an `accepted`
     * decision of the `privacy_policy` consent, so the consent list agrees with it.
     */
    async acceptPolicy(
      actor: Actor,
      input: AcceptPolicyInput,
      context: RequestContext,
    ): Promise<PolicyAcceptance> {
      requirePerson(actor);
      return inTransaction(db.kysely, async (trx) => {
        const r = createPrivacyRepo(trx);
        const now = nowIso();
        const ipAddress = context.ip;
        const userAgent = context.userAgent?.slice(0, USER_AGENT_MAX) ?? null;
        const acceptance = await r.insertAcceptance({
          userId: actor.userId,
          version: input.version,
          ipAddress,
          userAgent,
          now,
        });
        await r.insertConsent({
          userId: actor.userId,
          consentType: 'privacy_policy',
          decision: 'accepted',
          policyVersion: input.version,
          source: 'policy_acceptance',
          ipAddress,
          userAgent,
          metadata: null,
          now,
        });
        return acceptance;
      });
    },

    /** Operator commands (CLI): the queue of every person's requests. */
    operator: {
      async list(query: ListRequestsQuery): Promise<{ items: OperatorRequest[]; total: number }> {
        const { rows, total } = await repo.listRequests(filterOf(query));
        return { items: rows.map(toOperatorRequest), total };
      },

      /** The request, whose it is (while the account exists) and its audit trail. */
      async show(id: number) {
        const row = await requireRequest(id);
        const account = row.userId === null ? null : await users.me(row.userId).catch(() => null);
        return {
          request: toOperatorRequest(row),
          account: account ? { id: account.id, email: account.email, name: account.name } : null,
          audit: await repo.auditOf(id),
        };
      },

      /**
       * Starts a pending request (or runs an in-progress one again, after a failure):
       * `in_progress` now, worked by the job queue.
       */
      async process(id: number): Promise<OperatorRequest> {
        const existing = await requireRequest(id);
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
      },

      /** Rejects a request not yet completed; the reason is shown to the person. */
      async reject(id: number, reason: string): Promise<OperatorRequest> {
        const text = reason.trim();
        if (!text || text.length > REASON_MAX)
          throw validationFailed(`A reason of 1..${REASON_MAX} characters is required`);
        const existing = await requireRequest(id);
        const now = nowIso();
        const from: DataSubjectRequestStatus[] = ['pending', 'in_progress'];
        const row = await repo.transition(id, from, 'rejected', now, { resolution: text, completedAt: now });
        if (!row)
          throw conflict('CONFLICT', `Request ${id} is ${existing.status}; it can no longer be rejected`);
        await repo.audit({ requestId: id, action: 'rejected', actor: 'operator', now });
        return toOperatorRequest(row);
      },

      /** The job handler itself, for tests and for re-running by hand. */
      run: process,
    },
  };
}
