import { nowIso } from '../../lib/time.js';
import type { Event } from '../events/schemas.js';
import type { EventService } from '../events/service.js';
import type { ApplyEvents } from './apply.js';
import { isOwnExdate } from './exdates.js';
import {
  type EventWrite,
  type ExternalEvent,
  NotFoundAtProviderError,
  PreconditionFailedError,
} from './providers/port.js';
import type { SyncRepo } from './repo.js';
import type { PushJob, SyncContext, SyncLogger } from './sync-context.js';
import type { TokenKeeper } from './tokens.js';

/** The local event as the provider should see it; our own EXDATE lines stay here. */
function toWrite(event: Event, withReminders: boolean): EventWrite {
  const recurrence = event.recurrence.filter((line) => !isOwnExdate(line));
  return {
    title: event.title,
    description: event.description,
    location: event.location,
    allDay: event.allDay,
    startTime: event.startTime,
    endTime: event.endTime,
    timezone: event.timezone,
    recurrence: recurrence.length > 0 ? recurrence : null,
    transparency: event.transparency,
    ...(withReminders ? { reminders: event.reminders } : {}),
  };
}

export interface PushDeps {
  repo: SyncRepo;
  events: Pick<EventService, 'mirrored'>;
  tokens: TokenKeeper;
  log: SyncLogger;
  applyEvents: ApplyEvents;
}

/** What a pushed event records of its copy at the provider. */
function externalOf({ mapping }: SyncContext, atProvider: ExternalEvent) {
  return {
    externalProvider: mapping.provider,
    externalId: atProvider.externalId,
    externalEtag: atProvider.etag,
    externalLastSyncedAt: nowIso(),
  };
}

/**
 * The provider changed the event since our last sync and refused our change (412), or it is
 * gone there: the provider's version is applied locally and the choice recorded.
 */
async function providerWins(
  { repo, tokens, log, applyEvents, events }: PushDeps,
  ctx: SyncContext,
  eventId: number | null,
  externalId: string,
  localChange: 'update' | 'delete',
): Promise<void> {
  const { mapping, port, connection } = ctx;
  const fresh = await tokens.withAccess(connection, (access) =>
    port.getEvent(access, mapping.externalCalendarId, externalId),
  );
  let keptId: number | null = null;
  if (fresh && !fresh.cancelled) {
    const applied = await applyEvents(ctx, [fresh], null, undefined, true);
    keptId = applied.changed[0] ?? eventId;
  } else if (eventId !== null) {
    await events.mirrored().deleteMany([eventId]);
  }
  await repo.insertConflict({
    userId: mapping.userId,
    mappingId: mapping.id,
    eventId: keptId,
    externalId,
    localChange,
    now: nowIso(),
  });
  log.info({ mappingId: mapping.id, localChange }, 'calendar sync: conflict, provider version kept');
}

/** A local event new to the provider: created there, unless its recurrence cannot be (recorded on the connection). */
async function createAtProvider(
  { repo, tokens, events }: PushDeps,
  ctx: SyncContext,
  event: Event,
  write: EventWrite,
): Promise<void> {
  const { mapping, port, connection } = ctx;
  if (port.canHold && !port.canHold(write)) {
    await repo.setError(
      connection.id,
      {
        code: 'PUSH_UNSUPPORTED',
        message: `Event ${event.id}: its recurrence cannot be expressed at the provider`,
      },
      nowIso(),
    );
    return;
  }
  const created = await tokens.withAccess(connection, (access) =>
    port.createEvent(access, mapping.externalCalendarId, write),
  );
  await events.mirrored().setExternal(event.id, externalOf(ctx, created));
}

async function pushWrite(deps: PushDeps, ctx: SyncContext, eventId: number): Promise<void> {
  const { mapping, port, connection } = ctx;
  const mirrored = deps.events.mirrored();
  const event = await mirrored.findById(eventId);
  if (!event || event.calendarId !== mapping.localCalendarId) return;
  const { external } = event;
  if (external && external.provider !== mapping.provider) return;
  // Nothing local is newer than what the provider has (a sync wrote it, or an earlier push).
  if (external?.lastSyncedAt && event.updatedAt <= external.lastSyncedAt) return;
  const write = toWrite(event, mapping.importReminders);
  if (!external) return createAtProvider(deps, ctx, event, write);
  const { externalId } = external;
  try {
    const updated = await deps.tokens.withAccess(connection, (access) =>
      port.updateEvent(access, mapping.externalCalendarId, externalId, write, external.etag),
    );
    await mirrored.setExternal(event.id, externalOf(ctx, updated));
  } catch (error) {
    if (error instanceof PreconditionFailedError || error instanceof NotFoundAtProviderError) {
      await providerWins(deps, ctx, event.id, externalId, 'update');
      return;
    }
    throw error;
  }
}

async function pushDelete(deps: PushDeps, ctx: SyncContext, job: PushJob): Promise<void> {
  const { mapping, port, connection } = ctx;
  const externalId = job.externalId;
  if (!externalId) return;
  try {
    await deps.tokens.withAccess(connection, (access) =>
      port.deleteEvent(access, mapping.externalCalendarId, externalId, job.etag ?? null),
    );
  } catch (error) {
    if (error instanceof PreconditionFailedError) {
      await providerWins(deps, ctx, null, externalId, 'delete');
      return;
    }
    throw error;
  }
}

/**
 * Local to provider: pushes one local change with the stored ETag; a 412 (or the event gone
 * there) re-reads and keeps the provider's version ("provider wins", recorded).
 */
export function createPush(deps: PushDeps) {
  /** Pushes one local change; runs under the calendar's lease. */
  return async function pushChange(ctx: SyncContext, job: PushJob): Promise<void> {
    if (job.type === 'deleted') await pushDelete(deps, ctx, job);
    else await pushWrite(deps, ctx, job.eventId);
  };
}
