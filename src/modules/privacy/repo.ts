import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { containsIgnoringCase, idBefore, newestFirstPage } from '../../db/keyset.js';
import type { Consent, DataSubjectRequest, PolicyAcceptance } from './schemas.js';
import type {
  ConsentDecision,
  ConsentType,
  DataSubjectRequestStatus,
  DataSubjectRequestsTable,
  DataSubjectRequestType,
} from './tables.js';

export type RequestRow = Selectable<DataSubjectRequestsTable>;

export function toRequest(row: RequestRow): DataSubjectRequest {
  return {
    id: row.id,
    requestType: row.requestType,
    status: row.status,
    reason: row.reason,
    confirmEmail: row.confirmEmail,
    resolution: row.resolution,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    completedAt: row.completedAt,
  };
}

export interface RequestFilter {
  /** Only this person's requests; undefined for the operator (every request). */
  userId?: number;
  statuses?: readonly DataSubjectRequestStatus[];
  requestTypes?: readonly DataSubjectRequestType[];
  search?: string;
  offset: number;
  limit: number;
}

const consentColumns = ['consentType', 'decision', 'policyVersion', 'source', 'decidedAt'] as const;

export function createPrivacyRepo(db: Executor) {
  return {
    // Data-subject requests

    insertRequest(values: {
      userId: number;
      requestType: DataSubjectRequestType;
      reason: string | null;
      confirmEmail: string | null;
      now: string;
    }): Promise<RequestRow> {
      const { now, ...request } = values;
      return db
        .insertInto('dataSubjectRequests')
        .values({ ...request, status: 'pending', resolution: null, createdAt: now, updatedAt: now })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    findRequest(id: number): Promise<RequestRow | undefined> {
      return db.selectFrom('dataSubjectRequests').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Newest first; `total` counts every match, the page is `offset`..`offset + limit`. */
    async listRequests(filter: RequestFilter): Promise<{ rows: RequestRow[]; total: number }> {
      let q = db.selectFrom('dataSubjectRequests');
      if (filter.userId !== undefined) q = q.where('userId', '=', filter.userId);
      if (filter.statuses?.length) q = q.where('status', 'in', filter.statuses);
      if (filter.requestTypes?.length) q = q.where('requestType', 'in', filter.requestTypes);
      if (filter.search) {
        const text = filter.search;
        q = q.where((eb) =>
          eb.or([
            containsIgnoringCase('reason', text),
            containsIgnoringCase('confirmEmail', text),
            containsIgnoringCase('resolution', text),
          ]),
        );
      }
      const [count, rows] = await Promise.all([
        q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
        q.selectAll().orderBy('id', 'desc').offset(filter.offset).limit(filter.limit).execute(),
      ]);
      return { rows, total: Number(count?.n ?? 0) };
    },

    /**
     * Moves a request from one of `from` to `to` in one conditional update; undefined
     * when it was in none of them (a concurrent change won, or the state forbids it).
     */
    transition(
      id: number,
      from: readonly DataSubjectRequestStatus[],
      to: DataSubjectRequestStatus,
      now: string,
      extra: { resolution?: string | null; startedAt?: string; completedAt?: string } = {},
    ): Promise<RequestRow | undefined> {
      return db
        .updateTable('dataSubjectRequests')
        .set({ status: to, updatedAt: now, ...extra })
        .where('id', '=', id)
        .where('status', 'in', from)
        .returningAll()
        .executeTakeFirst();
    },

    // Consents

    async insertConsent(values: {
      userId: number;
      consentType: ConsentType;
      decision: ConsentDecision;
      policyVersion: string;
      source: string | null;
      ipAddress: string | null;
      userAgent: string | null;
      metadata: string | null;
      now: string;
    }): Promise<Consent> {
      const { now, ...decision } = values;
      return db
        .insertInto('consentDecisions')
        .values({ ...decision, decidedAt: now })
        .returning(consentColumns)
        .executeTakeFirstOrThrow();
    },

    /** The newest decision of each decided type, in the order of CONSENT_TYPES' declaration. */
    currentConsents(userId: number): Promise<Consent[]> {
      return db
        .selectFrom('consentDecisions')
        .select(consentColumns)
        .where(
          'id',
          'in',
          db
            .selectFrom('consentDecisions')
            .select((eb) => eb.fn.max('id').as('id'))
            .where('userId', '=', userId)
            .groupBy('consentType'),
        )
        .orderBy('consentType')
        .execute();
    },

    /** Newest first, by id. Throws InvalidCursorError for a foreign cursor. */
    async consentHistory(
      userId: number,
      query: { consentType?: ConsentType; cursor?: string; limit: number },
    ): Promise<{ items: Consent[]; nextCursor: string | null }> {
      let q = db.selectFrom('consentDecisions').where('userId', '=', userId);
      if (query.consentType) q = q.where('consentType', '=', query.consentType);
      if (query.cursor !== undefined) q = q.where('id', '<', idBefore(query.cursor));
      const rows = await q
        .select(['id', ...consentColumns])
        .orderBy('id', 'desc')
        .limit(query.limit + 1)
        .execute();
      const { page, nextCursor } = newestFirstPage(rows, query.limit);
      return { items: page.map(({ id: _id, ...consent }) => consent), nextCursor };
    },

    // Policy acceptance

    insertAcceptance(values: {
      userId: number;
      version: string;
      ipAddress: string | null;
      userAgent: string | null;
      now: string;
    }): Promise<PolicyAcceptance> {
      const { now, ...acceptance } = values;
      return db
        .insertInto('policyAcceptances')
        .values({ ...acceptance, acceptedAt: now })
        .returning(['version', 'acceptedAt'])
        .executeTakeFirstOrThrow();
    },

    latestAcceptance(userId: number): Promise<PolicyAcceptance | undefined> {
      return db
        .selectFrom('policyAcceptances')
        .select(['version', 'acceptedAt'])
        .where('userId', '=', userId)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
    },

    // The operator's audit trail (no personal data: actions, ids, counts)

    async audit(values: {
      requestId: number | null;
      action: string;
      actor: 'person' | 'operator' | 'job';
      details?: Record<string, unknown>;
      now: string;
    }): Promise<void> {
      await db
        .insertInto('privacyAudit')
        .values({
          requestId: values.requestId,
          action: values.action,
          actor: values.actor,
          details: JSON.stringify(values.details ?? {}),
          createdAt: values.now,
        })
        .execute();
    },

    async auditOf(requestId: number) {
      const rows = await db
        .selectFrom('privacyAudit')
        .select(['id', 'action', 'actor', 'details', 'createdAt'])
        .where('requestId', '=', requestId)
        .orderBy('id')
        .execute();
      return rows.map((row) => ({ ...row, details: JSON.parse(row.details) as Record<string, unknown> }));
    },
  };
}

export type PrivacyRepo = ReturnType<typeof createPrivacyRepo>;
