import type { Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { nowIso } from '../../lib/time.js';
import type { ResolvedSchedule } from '../../scheduling/resolve.js';
import type { ResourcesContext, ResourcesServiceDeps } from './context.js';
import { createResourceReads } from './reads.js';
import { createResourceRepo } from './repo.js';
import type { CreateResourceInput, Resource, UpdateResourceInput } from './schemas.js';
import { createResourceWrites } from './writes.js';

export type { ResourcesServiceDeps } from './context.js';

/** A resource's public link: its token and the URL that carries it. */
export interface PublicResourceLink {
  token: string;
  publicUrl: string;
}

/**
 * Resources of the actor's active organisation (`readCatalogue` to read,
 * `writeCatalogue` to write), and their capacity lanes: a
 * parent with capacity N > 1 always has exactly N lanes (`<name> #<n>`), which
 * booking and availability schedule instead of the parent.
 */
export interface ResourcesService {
  /**
   * Registers `listener`, told after a committed write that may add bookable time to a
   * type: a new resource, a capacity raised, a resource activated, moved to the type or
   * given another schedule (the waitlist offers it at once instead of at its next sweep).
   */
  onTimeAdded(listener: (organisationId: number, resourceTypeId: number) => void): void;
  /**
   * Answers are cached under the version of the organisation's resources: a hit costs
   * one version read, and its answer, frozen, is serialised once (src/http/serialize.ts).
   */
  list(actor: Actor, filter: { resourceTypeId?: number }): Promise<Resource[]>;
  /** One resource or lane of the active organisation (404 otherwise). */
  get(actor: Actor, id: number): Promise<Resource>;
  /** Creates a resource, with its lanes when its capacity is over 1. */
  create(actor: Actor, input: CreateResourceInput): Promise<Resource>;
  /**
   * Staff (`writeCatalogue`) change any field; the resource's manager, whatever their
   * role, may change their own settings (`managerSettings`).
   */
  update(actor: Actor, id: number, input: UpdateResourceInput): Promise<Resource>;
  /** Deletes a resource without lanes (409 RESOURCE_HAS_CHILD_LANES otherwise). */
  remove(actor: Actor, id: number): Promise<void>;
  /** Deletes a parent and its lanes together. */
  removeWithLanes(actor: Actor, id: number): Promise<void>;
  /** The resource's public link (a lane has none: its parent is shared). */
  publicToken(actor: Actor, id: number): Promise<PublicResourceLink>;
  /** A new token; links carrying the old one stop working at once. */
  regenerateToken(actor: Actor, id: number): Promise<PublicResourceLink>;
  /** The effective schedule of a resource and the scope each section came from. */
  schedule(actor: Actor, id: number): Promise<ResolvedSchedule>;
  /** The IANA zone of the actor's active organisation: its schedules' local times are in it. */
  organisationTimezone(actor: Actor): Promise<string>;
  /** One resource or lane of an organisation, without an actor (booking, public pages). */
  findInOrganisation(organisationId: number, id: number): Promise<Resource | undefined>;
  /** Every resource and lane of an organisation, without an actor (the public catalogue). */
  listInOrganisation(organisationId: number): Promise<Resource[]>;
  /** Read port: whether any resource is of the type, read in the caller's transaction (deleting a type). */
  hasResourcesOfType(executor: Executor, resourceTypeId: number): Promise<boolean>;
  /** Read port: the active, non-lane resource a public token names (the public booking page). */
  byPublicToken(token: string): Promise<{ id: number; organisationId: number } | undefined>;
}

/**
 * Wires reading (reads.ts) and writing (writes.ts, with lanes.ts and values.ts) and keeps
 * the `onTimeAdded` listeners.
 */
export function createResourcesService(deps: ResourcesServiceDeps): ResourcesService {
  const repoFor = (executor: Executor) => createResourceRepo(executor, deps.db.dialect);
  /** Told after a write that may add bookable time to a type (see `onTimeAdded`). */
  const timeAddedListeners: Array<(organisationId: number, resourceTypeId: number) => void> = [];
  const ctx: ResourcesContext = {
    ...deps,
    repo: repoFor(deps.db.kysely),
    repoFor,
    timeAdded(organisationId, resourceTypeId) {
      for (const listener of timeAddedListeners) listener(organisationId, resourceTypeId);
    },
  };
  // A member who leaves manages nothing of the organisation's any more, nor lends it their calendars.
  deps.organisations.onMemberRemoved((trx, { organisationId, userId }) =>
    repoFor(trx).clearManager(organisationId, userId, nowIso()),
  );
  return {
    onTimeAdded(listener) {
      timeAddedListeners.push(listener);
    },
    ...createResourceReads(ctx),
    ...createResourceWrites(ctx),
    organisationTimezone: async (actor) =>
      (await deps.organisations.requireTenant(actor, { can: 'readCatalogue' })).timezone,
    byPublicToken: (token) => ctx.repo.findPublicByToken(token),
    hasResourcesOfType: (executor, resourceTypeId) => repoFor(executor).anyOfType(resourceTypeId),
  };
}
