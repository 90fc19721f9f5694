import { type Db, type Executor, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { type Actor, calendarInScope, calendarScope, groupScope } from '../../lib/actor.js';
import { conflict, DomainError, forbidden, notFound, validationFailed } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { type CalendarValues, createCalendarRepo } from './repo.js';
import {
  type Calendar,
  type CreateCalendarInput,
  isValidTimeZone,
  type UpdateCalendarInput,
} from './schemas.js';

/** The calendar every user gets when their account is created. */
export const DEFAULT_CALENDAR = { name: 'Personal', color: '#3b82f6', timezone: 'UTC' } as const;

const defaultCalendarConflict = (message: string) => conflict('DEFAULT_CALENDAR', message);

function checkTimeZone(timezone: string | undefined) {
  if (timezone !== undefined && !isValidTimeZone(timezone))
    throw validationFailed('Unknown time zone', [
      { path: 'timezone', message: 'must be an IANA time zone such as Europe/Berlin' },
    ]);
}

/** Two concurrent "make this the default" writes: the one-default index lets one win; the other is told. */
function defaultRace(error: unknown): never {
  if (isUniqueViolation(error))
    throw new DomainError('CONFLICT', 'The default calendar changed at the same time; try again');
  throw error;
}

export type CalendarService = ReturnType<typeof createCalendarService>;

export function createCalendarService({ db }: { db: Db }) {
  const repo = createCalendarRepo(db.kysely);

  /** The calendar if the actor may read it (own, or shared through a group), within the actor's scope. */
  async function findReadable(actor: Actor, calendarId: number): Promise<Calendar | undefined> {
    if (!calendarInScope(actor, calendarId)) return undefined;
    return repo.findReadable(actor.userId, calendarId, { groupIds: groupScope(actor) });
  }

  /**
   * Reads and access checks other modules build on (events, people groups, sync).
   * `what` names the thing a 404 talks about (an event's calendar answers "Event not found").
   */
  async function requireReadable(actor: Actor, calendarId: number, what = 'Calendar'): Promise<Calendar> {
    const found = await findReadable(actor, calendarId);
    if (!found) throw notFound(what);
    return found;
  }

  /** Writing needs ownership. A calendar the actor can only read (shared) answers 403; an unseen one 404. */
  async function requireOwned(actor: Actor, calendarId: number, what = 'Calendar'): Promise<Calendar> {
    const found = await requireReadable(actor, calendarId, what);
    if (found.accessRole !== 'owner')
      throw forbidden('Only the owner of this calendar can change it or its events');
    return found;
  }

  return {
    requireReadable,
    requireOwned,

    /** Read port: a calendar's time zone without an actor (calendar sync writes its mirrored events in it). */
    timezoneOf: async (calendarId: number): Promise<string | undefined> =>
      (await repo.findById(calendarId))?.timezone,

    /** A calendar by id without an actor (a subscription feed, whose secret URL is the credential). */
    findForFeed: (calendarId: number): Promise<Calendar | undefined> => repo.findById(calendarId),

    /**
     * Whether the person owns the calendar, without an actor (a resource's booking calendar
     * must be its manager's), read through the caller's transaction when it holds one.
     */
    isOwnedBy: (calendarId: number, ownerId: number, executor: Executor = db.kysely): Promise<boolean> =>
      createCalendarRepo(executor).isOwnedBy(calendarId, ownerId),

    /**
     * The actor's own calendars in the given ids, all of them or a 404 naming none
     * (attaching calendars to a group). Ids outside the actor's scope count as absent.
     */
    async requireOwnedMany(actor: Actor, calendarIds: readonly number[]): Promise<Calendar[]> {
      const wanted = [...new Set(calendarIds)];
      if (wanted.length === 0) return [];
      if (!wanted.every((id) => calendarInScope(actor, id))) throw notFound('Calendar');
      const owned = await repo.listOwned(actor.userId, wanted);
      if (owned.length !== wanted.length) throw notFound('Calendar');
      return owned;
    },

    /** Own calendars first (the default first), then calendars shared through groups; by name within each. */
    async list(actor: Actor): Promise<Calendar[]> {
      const calendarIds = calendarScope(actor);
      const groupIds = groupScope(actor);
      if (calendarIds?.length === 0) return [];
      const { owned, shared } =
        groupIds?.length === 0
          ? { owned: await repo.listOwned(actor.userId, calendarIds), shared: [] }
          : await repo.listVisible(actor.userId, { calendarIds, groupIds });
      const byName = (a: Calendar, b: Calendar) => a.name.localeCompare(b.name) || a.id - b.id;
      owned.sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || byName(a, b));
      return [...owned, ...shared.sort(byName)];
    },

    get(actor: Actor, calendarId: number): Promise<Calendar> {
      return requireReadable(actor, calendarId);
    },

    async create(actor: Actor, input: CreateCalendarInput): Promise<Calendar> {
      if (calendarScope(actor) !== undefined)
        throw forbidden('This access is limited to particular calendars and cannot create new ones');
      checkTimeZone(input.timezone);
      const values: CalendarValues = {
        name: input.name,
        color: input.color ?? DEFAULT_CALENDAR.color,
        timezone: input.timezone ?? DEFAULT_CALENDAR.timezone,
        description: input.description ?? null,
        isDefault: input.isDefault === true,
      };
      return inTransaction(db.kysely, async (trx) => {
        const now = nowIso();
        const calendars = createCalendarRepo(trx);
        if (values.isDefault) await calendars.clearDefault(actor.userId, now);
        return calendars.insert(actor.userId, values, now);
      }).catch(defaultRace);
    },

    async update(actor: Actor, calendarId: number, input: UpdateCalendarInput): Promise<Calendar> {
      const calendar = await requireOwned(actor, calendarId);
      checkTimeZone(input.timezone);
      if (input.isDefault === false && calendar.isDefault)
        throw defaultCalendarConflict(
          'The default calendar stays the default; make another calendar the default instead',
        );
      const { isDefault, ...changes } = input;
      const becomesDefault = isDefault === true && !calendar.isDefault;
      return inTransaction(db.kysely, async (trx) => {
        const now = nowIso();
        const calendars = createCalendarRepo(trx);
        if (becomesDefault) await calendars.clearDefault(actor.userId, now);
        return calendars.update(
          calendarId,
          actor.userId,
          { ...changes, ...(becomesDefault ? { isDefault: true } : {}) },
          now,
        );
      }).catch(defaultRace);
    },

    async delete(actor: Actor, calendarId: number): Promise<void> {
      const calendar = await requireOwned(actor, calendarId);
      if (calendar.isDefault)
        throw defaultCalendarConflict(
          'The default calendar cannot be deleted; make another calendar the default first',
        );
      // Its events and its group attachments go with it (foreign keys cascade). The repo
      // re-checks the flag, so a default moved here meanwhile is not deleted either.
      if (!(await repo.deleteUnlessDefault(calendarId)))
        throw defaultCalendarConflict(
          'The default calendar cannot be deleted; make another calendar the default first',
        );
    },

    /** Creates the default calendar of a new user, inside the transaction that creates the user. */
    async createDefaultCalendar(executor: Executor, userId: number): Promise<Calendar> {
      return createCalendarRepo(executor).insert(
        userId,
        { ...DEFAULT_CALENDAR, description: null, isDefault: true },
        nowIso(),
      );
    },
  };
}
