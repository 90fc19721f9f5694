import type { Actor } from '../../lib/actor.js';
import { conflict, invalidFields, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { filterOf, type PrivacyContext, requirePerson, subjectOf } from './context.js';
import { type RequestRow, toRequest } from './repo.js';
import type { CreateRequestInput, DataSubjectRequest, ListRequestsQuery } from './schemas.js';
import type { PrivacyService } from './service.js';

type PersonRequests = Pick<PrivacyService, 'createRequest' | 'listRequests' | 'getRequest' | 'cancelRequest'>;

/** The person's own data-subject requests: filing, reading and withdrawing them. */
export function createPersonRequests(ctx: PrivacyContext): PersonRequests {
  const { repo } = ctx;

  async function requireOwnRequest(actor: Actor, id: number): Promise<RequestRow> {
    const row = await repo.findRequest(id);
    // Another person's request answers exactly like an absent one.
    if (!row || row.userId !== actor.userId) throw notFound('Request');
    return row;
  }

  return {
    async createRequest(actor: Actor, input: CreateRequestInput): Promise<DataSubjectRequest> {
      requirePerson(actor);
      const subject = await subjectOf(ctx, actor.userId);
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

    async listRequests(actor: Actor, query: ListRequestsQuery) {
      requirePerson(actor);
      const { rows, total } = await repo.listRequests(filterOf(query, actor.userId));
      return { items: rows.map(toRequest), total, offset: query.offset, limit: query.limit };
    },

    async getRequest(actor: Actor, id: number): Promise<DataSubjectRequest> {
      requirePerson(actor);
      return toRequest(await requireOwnRequest(actor, id));
    },

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
  };
}
