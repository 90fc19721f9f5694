import type { Db } from '../../db/database.js';
import type { ApprovedCallRunner } from '../../mcp/types.js';
import type { AgentService } from '../agents/service.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { EventWriter } from '../outbox/service.js';
import type { ReservationsService } from '../reservations/service.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { ResourcesService } from '../resources/service.js';
import type { WaitlistService } from '../waitlist/service.js';
import { type ApprovalRepo, createApprovalRepo } from './repo.js';

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

export interface ApprovalsServiceDeps {
  db: Db;
  frontendUrl: string;
  deps: () => ApprovalDependencies;
}

/** What every approvals use case is built from. */
export interface ApprovalsContext extends ApprovalsServiceDeps {
  repo: ApprovalRepo;
  /** The MCP runtime's runner of an approved call, bound once the runtime starts (gate.bindRunner). */
  calls: { runner?: ApprovedCallRunner };
}

export function createApprovalsContext(deps: ApprovalsServiceDeps): ApprovalsContext {
  return { ...deps, repo: createApprovalRepo(deps.db.kysely), calls: {} };
}
