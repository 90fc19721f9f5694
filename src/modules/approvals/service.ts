import { type Db, inTransaction } from '../../db/database.js';
import { InvalidCursorError } from '../../db/keyset.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, type DomainError, forbidden, invalidCursor, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { ApprovedCallRunner, GatedCall, PendingApproval, ToolCallGate } from '../../mcp/types.js';
import type { AgentService } from '../agents/service.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { EventWriter } from '../outbox/service.js';
import type { ReservationsService } from '../reservations/service.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { ResourcesService } from '../resources/service.js';
import type { WaitlistService } from '../waitlist/service.js';
import type { CallCustomer, CallFacts, ShownFacts } from './facts.js';
import { createAdmission } from './gate.js';
import { ACTION_TRAITS, type BookedTime, formatMoney, formatRange } from './policy.js';
import { type ApprovalRow, createApprovalRepo } from './repo.js';
import { APPROVAL_TTL_MS, type Approval, type ListApprovalsQuery } from './schemas.js';

/** The job that expires approvals nobody decided within 24 hours. */
export const APPROVAL_EXPIRY_JOB = 'agent_approval_expiry';
export const EXPIRY_EVERY_MINUTES = 5;

/** Everything this module reads of others, read when used (the registry may build them later). */
export interface ApprovalDependencies {
  agents: AgentService;
  outbox: EventWriter;
  organisations: Pick<OrganisationsService, 'requireTenant'>;
  resources: Pick<ResourcesService, 'get'>;
  resourceTypes: Pick<ResourceTypesService, 'get'>;
  reservations: Pick<ReservationsService, 'get' | 'getSeries'>;
  waitlist: Pick<WaitlistService, 'isOfferHold'>;
}

const parsed = (text: string | null) =>
  text === null ? null : (JSON.parse(text) as Record<string, unknown>);

/** What an approval showed its owner: checked again before its call runs. */
const shownFacts = (row: ApprovalRow): ShownFacts => ({
  organisationId: row.organisationId,
  times: row.facts === null ? [] : (JSON.parse(row.facts) as { times: BookedTime[] }).times,
  amount: row.amount,
  currency: row.currency,
});

/** What an approval keeps beside its times: who asked, and for whom (absent on older approvals). */
interface KeptFacts {
  times: BookedTime[];
  agentName?: string;
  customer?: CallCustomer | null;
}

/** The API record; a pending approval past its time reads as expired before the sweep gets to it. */
function view(row: ApprovalRow, now = Date.now()): Approval {
  const lapsed = row.status === 'pending' && Date.parse(row.expiresAt) <= now;
  const kept = row.facts === null ? null : (JSON.parse(row.facts) as KeptFacts);
  return {
    id: row.id,
    agentId: row.agentId,
    agentName: kept?.agentName ?? `Agent ${row.agentId}`,
    customer: kept?.customer ?? null,
    actionKey: row.actionKey,
    arguments: parsed(row.arguments) ?? {},
    summary: row.summary,
    status: lapsed ? 'expired' : row.status,
    result: parsed(row.result),
    createdAt: row.createdAt,
    decidedAt: lapsed ? row.expiresAt : row.decidedAt,
    expiresAt: row.expiresAt,
  };
}

function requirePerson(actor: Actor) {
  if (actor.agent) throw forbidden('Agents cannot decide approvals: only their owner can');
}

export type ApprovalsService = ReturnType<typeof createApprovalsService>;

/**
 * Agents acting safely (DECISIONS.md): the gate the MCP runtime asks before every
 * writing tool call (approval mode, amount threshold, daily limits), and the approvals
 * it creates: the stored call, its summary, the owner's decision, and the one run of
 * an approved call, as the agent is at that moment.
 */
export function createApprovalsService({
  db,
  frontendUrl,
  deps,
}: {
  db: Db;
  frontendUrl: string;
  deps: () => ApprovalDependencies;
}) {
  const repo = createApprovalRepo(db.kysely);
  let runner: ApprovedCallRunner | undefined;

  const approveUrl = (id: number) => `${frontendUrl.replace(/\/+$/, '')}/approvals/${id}`;

  /** Expires what is due, each with its `agent.approval.decided` event; answers how many. */
  async function expireDue(): Promise<number> {
    return inTransaction(db.kysely, async (trx) => {
      const expired = await createApprovalRepo(trx).expireDue(nowIso());
      if (expired.length > 0)
        await deps().outbox.append(
          trx,
          expired.map((row) => ({
            type: 'agent.approval.decided' as const,
            organisationId: null,
            userId: row.userId,
            data: view(row),
          })),
        );
      return expired.length;
    });
  }

  /** "Room A" for a booked time: its resource, else its pool's type; null when neither can be read. */
  async function placeOf(actor: Actor, time: BookedTime): Promise<string | null> {
    const { resources, resourceTypes } = deps();
    try {
      if (time.resourceId !== null) return (await resources.get(actor, time.resourceId)).name;
      if (time.resourceTypeId !== null) return (await resourceTypes.get(actor, time.resourceTypeId)).name;
    } catch {
      // Named by id below: a summary never fails the call it describes.
    }
    return null;
  }

  async function zoneOf(actor: Actor): Promise<string> {
    try {
      return (await deps().organisations.requireTenant(actor)).timezone;
    } catch {
      return 'UTC';
    }
  }

  /** The call in words for its owner: "Book Room A, Tue 3 Mar 10:00-11:00 Europe/Berlin, 40.00 EUR". */
  async function summarise(call: GatedCall, facts: CallFacts): Promise<string> {
    const traits = ACTION_TRAITS[call.actionKey];
    const [first] = facts.times;
    if (traits && first) {
      const zone = await zoneOf(call.actor);
      const place =
        (await placeOf(call.actor, first)) ??
        (first.resourceId !== null
          ? `resource ${first.resourceId}`
          : `resource type ${first.resourceTypeId}`);
      const parts = [
        `${traits.verb} ${place}`,
        formatRange(first.startTime, first.endTime, zone) +
          (facts.times.length > 1 ? ` (and ${facts.times.length - 1} more)` : ''),
      ];
      if (facts.amount !== null && facts.currency) parts.push(formatMoney(facts.amount, facts.currency));
      const { reservationId, seriesId } = call.input;
      const subject =
        typeof reservationId === 'number'
          ? ` (reservation ${reservationId})`
          : typeof seriesId === 'number'
            ? ` (series ${seriesId})`
            : '';
      return `${parts.join(', ')}${subject}`;
    }
    // Any other tool: its title and its plain arguments.
    const plain = Object.entries(call.input)
      .filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value))
      .map(([key, value]) => `${key}: ${String(value).slice(0, 80)}`);
    return (plain.length > 0 ? `${call.title} (${plain.join(', ')})` : call.title).slice(0, 500);
  }

  /**
   * Stores the call with what it was shown from (the organisation it was asked in, the
   * reservations and price of its summary) and tells the owner (`agent.approval.requested`).
   */
  async function request(
    call: GatedCall,
    facts: CallFacts,
    organisationId: number | null,
  ): Promise<PendingApproval> {
    const summary = await summarise(call, facts);
    const now = new Date();
    const row = await inTransaction(db.kysely, async (trx) => {
      const created = await createApprovalRepo(trx).insert({
        agentId: call.agent.id,
        userId: call.agent.userId,
        actionKey: call.actionKey,
        arguments: JSON.stringify(call.input),
        summary,
        amount: facts.amount,
        currency: facts.currency,
        organisationId,
        facts: JSON.stringify({
          times: facts.times,
          agentName: call.agent.name,
          customer: facts.customer ?? null,
        } satisfies KeptFacts),
        status: 'pending',
        result: null,
        createdAt: now.toISOString(),
        decidedAt: null,
        expiresAt: new Date(now.getTime() + APPROVAL_TTL_MS).toISOString(),
      });
      await deps().outbox.append(trx, [
        {
          type: 'agent.approval.requested',
          organisationId: null,
          userId: created.userId,
          data: view(created),
        },
      ]);
      return created;
    });
    return {
      id: row.id,
      status: 'pending',
      expiresAt: row.expiresAt,
      approveUrl: approveUrl(row.id),
      // For the URL-mode elicitation that asks the person (src/mcp/elicitation.ts).
      summary,
    };
  }

  const gate: ToolCallGate = {
    bindRunner(run) {
      runner = run;
    },
    admit: createAdmission({
      deps,
      request,
      async shownOf(agentId, approvalId) {
        const row = await repo.findForAgent(agentId, approvalId);
        return row && shownFacts(row);
      },
    }),
  };

  async function requireOwned(actor: Actor, id: number): Promise<ApprovalRow> {
    requirePerson(actor);
    const row = await repo.findOwned(actor.userId, id);
    if (!row) throw notFound('Approval');
    return row;
  }

  /** Why a decision cannot be made now (the approval is not pending any more). */
  function undecidable(row: ApprovalRow): DomainError {
    const current = view(row);
    if (current.status === 'expired')
      return conflict(
        'CONFLICT',
        'This approval has expired: it was not decided within 24 hours, and its call never ran',
      );
    return conflict('CONFLICT', `This approval is already ${current.status}`);
  }

  /**
   * 409 APPROVAL_STALE for an approval that failed because what its call would do now is
   * not what its owner was shown (the reason is in its result, for the agent too).
   */
  function throwIfStale(row: ApprovalRow): void {
    const error = parsed(row.result)?.error as { code?: string; message?: string } | undefined;
    if (row.status === 'failed' && error?.code === 'APPROVAL_STALE')
      throw conflict('APPROVAL_STALE', error.message ?? 'This approval is stale: nothing ran');
  }

  /** Records the decision's outcome with its `agent.approval.decided` event. */
  async function finish(
    id: number,
    status: 'executed' | 'failed',
    result: unknown,
  ): Promise<ApprovalRow | undefined> {
    return inTransaction(db.kysely, async (trx) => {
      const row = await createApprovalRepo(trx).finish(id, status, JSON.stringify(result));
      if (row)
        await deps().outbox.append(trx, [
          { type: 'agent.approval.decided', organisationId: null, userId: row.userId, data: view(row) },
        ]);
      return row;
    });
  }

  return {
    gate,
    expireDue,

    async list(
      actor: Actor,
      query: ListApprovalsQuery,
    ): Promise<{ items: Approval[]; nextCursor: string | null }> {
      requirePerson(actor);
      try {
        const { rows, nextCursor } = await repo.list(actor.userId, query);
        return { items: rows.map((row) => view(row)), nextCursor };
      } catch (error) {
        if (error instanceof InvalidCursorError) throw invalidCursor();
        throw error;
      }
    },

    async get(actor: Actor, id: number): Promise<Approval> {
      return view(await requireOwned(actor, id));
    },

    /**
     * Approves and runs the stored call once: the pending -> approved step is one
     * conditional update, so of a double click or two instances one runs it; the other
     * answers the approval as it stands. The call runs as the agent is now: a paused or
     * disabled agent's call fails, and is recorded so.
     */
    async approve(actor: Actor, id: number): Promise<Approval> {
      const current = await requireOwned(actor, id);
      const decided = await repo.decide(actor.userId, id, 'approved', nowIso());
      if (!decided) {
        const now = (await repo.findOwned(actor.userId, id)) ?? current;
        throwIfStale(now);
        if (['approved', 'executed', 'failed'].includes(now.status)) return view(now);
        throw undecidable(now);
      }
      const run = runner;
      const outcome = run
        ? await run({
            agentId: decided.agentId,
            actionKey: decided.actionKey,
            arguments: parsed(decided.arguments),
            approvalId: decided.id,
            organisationId: decided.organisationId,
          }).catch(() => ({ ok: false as const, code: 'INTERNAL' as const, message: 'Internal error' }))
        : { ok: false as const, code: 'UNAVAILABLE' as const, message: 'The tool runtime is not available' };
      const finished = outcome.ok
        ? await finish(id, 'executed', outcome.output)
        : await finish(id, 'failed', { error: { code: outcome.code, message: outcome.message } });
      throwIfStale(finished ?? decided);
      return view(finished ?? decided);
    },

    async deny(actor: Actor, id: number): Promise<Approval> {
      await requireOwned(actor, id);
      const denied = await inTransaction(db.kysely, async (trx) => {
        const row = await createApprovalRepo(trx).decide(actor.userId, id, 'denied', nowIso());
        if (row)
          await deps().outbox.append(trx, [
            { type: 'agent.approval.decided', organisationId: null, userId: row.userId, data: view(row) },
          ]);
        return row;
      });
      if (denied) return view(denied);
      const now = await requireOwned(actor, id);
      if (now.status === 'denied') return view(now);
      throw undecidable(now);
    },

    /** `approvals_get`: the calling agent's own approval; another agent's is NOT_FOUND. */
    async getForAgent(actor: Actor, id: number): Promise<Approval> {
      if (!actor.agent) throw notFound('Approval');
      const row = await repo.findForAgent(actor.agent.id, id);
      if (!row) throw notFound('Approval');
      return view(row);
    },
  };
}
