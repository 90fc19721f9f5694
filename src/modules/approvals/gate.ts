import type { Actor } from '../../lib/actor.js';
import { DomainError, type ErrorCode } from '../../lib/errors.js';
import type { GateDecision, GatedCall, PendingApproval } from '../../mcp/types.js';
import type { AgentPolicy } from '../agents/schemas.js';
import type { AgentService, LimitUse } from '../agents/service.js';
import type { OrganisationsService } from '../organisations/service.js';
import {
  type CallFacts,
  type FactReaders,
  factsOf,
  type ShownFacts,
  staleness,
  unitsAlone,
} from './facts.js';
import { ACTION_TRAITS, type ActionTraits } from './policy.js';

const LIMIT_NAMES = {
  booking: 'bookingsPerDay',
  cancellation: 'cancellationsPerDay',
  spend: 'spendPerDay',
} as const;

const RUN: GateDecision = { kind: 'run' };

/** What the admission reads of other modules, read when used. */
export interface AdmissionDependencies extends FactReaders {
  agents: Pick<AgentService, 'policyOf' | 'reserveUsage' | 'releaseUsage'>;
  organisations: Pick<OrganisationsService, 'requireTenant'>;
}

/** Whether one of the policy's daily limits counts calls of an action with these traits. */
function limited({ limits }: AgentPolicy, traits: ActionTraits): boolean {
  const booking = limits.bookingsPerDay !== null || limits.spendPerDay !== null;
  if (traits.counts === 'booking' || traits.takesOffer) return booking;
  return traits.counts === 'cancellation' && limits.cancellationsPerDay !== null;
}

/**
 * The organisation `actor` may work in now (an approved call's: the one it is bound to);
 * null when none, or when it refuses the actor (two-factor it requires, for one).
 */
async function organisationOf(
  organisations: AdmissionDependencies['organisations'],
  actor: Actor,
): Promise<number | null> {
  try {
    return (await organisations.requireTenant(actor)).organisationId;
  } catch (error) {
    if (error instanceof DomainError) return null;
    throw error;
  }
}

/** What the admission is made from: the modules it reads, the approvals it reads and stores. */
export interface AdmissionOptions {
  deps: () => AdmissionDependencies;
  /** What the approval `approvalId` of the agent kept; undefined when there is none. */
  shownOf: (agentId: number, approvalId: number) => Promise<ShownFacts | undefined>;
  /** Stores the call for its owner's decision. */
  request: (call: GatedCall, facts: CallFacts, organisationId: number | null) => Promise<PendingApproval>;
}

/** The daily limits the call's units count against: none when it counts nothing the policy limits. */
function limitUses({ limits }: AgentPolicy, facts: CallFacts): LimitUse[] {
  const uses: LimitUse[] = [];
  const { bookingsPerDay, cancellationsPerDay, spendPerDay } = limits;
  if (facts.units > 0 && facts.counts === 'booking' && bookingsPerDay !== null)
    uses.push({ kind: 'booking', amount: facts.units, limit: bookingsPerDay });
  if (facts.units > 0 && facts.counts === 'cancellation' && cancellationsPerDay !== null)
    uses.push({ kind: 'cancellation', amount: facts.units, limit: cancellationsPerDay });
  if (facts.counts === 'booking' && spendPerDay !== null && facts.amount)
    uses.push({ kind: 'spend', amount: facts.amount, limit: spendPerDay });
  return uses;
}

/** Counts the call's units against the daily limits; a refusal answers `code`. */
async function counted(
  { deps }: AdmissionOptions,
  call: GatedCall,
  policy: AgentPolicy,
  facts: CallFacts,
  code: ErrorCode,
): Promise<GateDecision> {
  const uses = limitUses(policy, facts);
  if (uses.length === 0) return RUN;
  const { agents } = deps();
  const reserved = await agents.reserveUsage(call.agent.id, uses);
  if (!reserved.ok) {
    const use = uses.find((candidate) => candidate.kind === reserved.kind);
    const several =
      use && use.kind !== 'spend' && use.amount > 1
        ? `: this call uses ${use.amount} of it, one per reservation`
        : '';
    const frees = reserved.freesAt ? `; it frees at ${reserved.freesAt}` : '';
    return {
      kind: 'refuse',
      code,
      message: `The agent's limit ${LIMIT_NAMES[reserved.kind]} (${reserved.limit} in any 24 hours) is reached${several}${frees}`,
    };
  }
  return {
    kind: 'run',
    // A call that failed used nothing: its units go back.
    settle: async ({ ok }) => {
      if (!ok) await deps().agents.releaseUsage(call.agent.id, reserved.ids);
    },
  };
}

/** An approved call: what it would do now against what was shown, then the limits. */
async function admitApproved(
  options: AdmissionOptions,
  call: GatedCall,
  approvalId: number,
  policy: AgentPolicy,
): Promise<GateDecision> {
  const { deps, shownOf } = options;
  const stale = (why: string): GateDecision => ({
    kind: 'refuse',
    code: 'APPROVAL_STALE',
    message: `Approval ${approvalId} is stale and nothing ran: ${why}. Ask again for what it would do now.`,
  });
  const shown = await shownOf(call.agent.id, approvalId);
  if (!shown) return stale('it is not this agent’s approval');
  const organisationId = await organisationOf(deps().organisations, call.actor);
  if (shown.organisationId !== null && organisationId !== shown.organisationId)
    return stale(`its organisation (${shown.organisationId}) is not one its owner can act in now`);
  const facts = await factsOf(call, deps());
  const reasons = staleness(shown, facts, policy.approvalOverAmount);
  if (reasons.length > 0) return stale(reasons.join('; '));
  const decision = await counted(options, call, policy, facts, 'APPROVAL_STALE');
  return decision.kind === 'refuse' ? stale(decision.message) : decision;
}

/**
 * The policy's verdict on one tool call (DECISIONS.md "Agents acting safely", "What the
 * review found, decided"): the approval mode and amount threshold send it for approval,
 * the daily limits count its units (each reservation it books or cancels). An approved
 * call is admitted only when what it would do now, as the agent and in the organisation
 * it was asked in, is what its owner was shown: otherwise APPROVAL_STALE, and nothing runs.
 */
export function createAdmission(options: AdmissionOptions) {
  const { deps, request } = options;
  return async function admit(call: GatedCall): Promise<GateDecision> {
    // A dry run changes nothing: nothing to approve or count.
    if (call.input.dryRun === true) return RUN;
    const policy = await deps().agents.policyOf(call.agent.id);
    if (call.approvalId !== null) return admitApproved(options, call, call.approvalId, policy);
    const traits = ACTION_TRAITS[call.actionKey];
    const byMode =
      policy.requireApproval === 'writes'
        ? call.risk !== 'read'
        : policy.requireApproval === 'destructive' && call.risk === 'destructive';
    // Nothing depends on what the call would do: it runs as it is.
    if (!byMode && !(traits && (policy.approvalOverAmount !== null || limited(policy, traits)))) return RUN;
    const amountNeeded = policy.approvalOverAmount !== null || policy.limits.spendPerDay !== null;
    const facts = (!byMode && !amountNeeded && unitsAlone(call)) || (await factsOf(call, deps()));
    const overAmount =
      policy.approvalOverAmount !== null && facts.amount !== null && facts.amount > policy.approvalOverAmount;
    if (byMode || overAmount) {
      const organisationId = await organisationOf(deps().organisations, call.actor);
      return { kind: 'approval', approval: await request(call, facts, organisationId) };
    }
    return counted(options, call, policy, facts, 'AGENT_LIMIT_REACHED');
  };
}
