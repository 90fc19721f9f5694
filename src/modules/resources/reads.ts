import type { Actor } from '../../lib/actor.js';
import { AnswerCache } from '../../lib/answer-cache.js';
import { randomToken } from '../../lib/crypto.js';
import { deepFreeze } from '../../lib/deep-freeze.js';
import { nowIso } from '../../lib/time.js';
import { type ResolvedSchedule, resolveSchedule } from '../../scheduling/resolve.js';
import { findOrThrow, type ResourcesContext, refuseLane } from './context.js';
import { toResource } from './repo.js';
import type { Resource } from './schemas.js';
import type { ResourcesService } from './service.js';

/** Resources held by the list's answer cache, across organisations: about 1.5 KB each with their JSON, 15 MB in all. */
const LIST_CACHE_MAX_RESOURCES = 10_000;

/** A lane's schedule is its parent's: the policies of the organisation, the type and the resource merged. */
async function effectiveSchedule(
  { db, organisations, resourceTypes, repo }: ResourcesContext,
  actor: Actor,
  id: number,
): Promise<ResolvedSchedule> {
  const { organisationId, schedulePolicy } = await organisations.requireTenant(actor, {
    can: 'readCatalogue',
  });
  const row = await findOrThrow(repo, organisationId, id);
  const owner = row.parentResourceId ? await findOrThrow(repo, organisationId, row.parentResourceId) : row;
  const type = await resourceTypes.findStored(db.kysely, organisationId, owner.resourceTypeId);
  return resolveSchedule({
    organisation: schedulePolicy,
    resourceType: type?.schedulePolicy ?? null,
    resource: toResource(owner).schedulePolicy,
  });
}

type Reads = Pick<
  ResourcesService,
  | 'list'
  | 'get'
  | 'publicToken'
  | 'regenerateToken'
  | 'schedule'
  | 'findInOrganisation'
  | 'listInOrganisation'
>;

/** Reading resources (with and without an actor), their effective schedules and their public links. */
export function createResourceReads(ctx: ResourcesContext): Reads {
  const { config, organisations, repo } = ctx;
  const listCache = new AnswerCache<Resource[]>(LIST_CACHE_MAX_RESOURCES, (list) => list.length);
  return {
    async list(actor: Actor, filter: { resourceTypeId?: number }): Promise<Resource[]> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readCatalogue' });
      const version = await repo.listVersion(organisationId);
      const key = `${organisationId}|${filter.resourceTypeId ?? ''}|${version}`;
      return listCache.get(key, async () =>
        deepFreeze(await repo.list(organisationId, filter.resourceTypeId)),
      );
    },

    async get(actor: Actor, id: number): Promise<Resource> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readCatalogue' });
      return toResource(await findOrThrow(repo, organisationId, id));
    },

    async publicToken(actor: Actor, id: number) {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readCatalogue' });
      const row = await findOrThrow(repo, organisationId, id);
      refuseLane(row, 'share');
      return {
        token: row.publicToken,
        publicUrl: `${config.publicUrl}/api/public/resources/${row.publicToken}`,
      };
    },

    async regenerateToken(actor: Actor, id: number) {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
      const row = await findOrThrow(repo, organisationId, id);
      refuseLane(row, 'share');
      const token = randomToken();
      await repo.setToken(id, token, nowIso());
      return { token, publicUrl: `${config.publicUrl}/api/public/resources/${token}` };
    },

    schedule: (actor, id) => effectiveSchedule(ctx, actor, id),

    async findInOrganisation(organisationId: number, id: number): Promise<Resource | undefined> {
      const row = await repo.find(organisationId, id);
      return row && toResource(row);
    },

    listInOrganisation: (organisationId: number): Promise<Resource[]> => repo.list(organisationId),
  };
}
