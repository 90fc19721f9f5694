import { DateTime } from 'luxon';
import { type Db, inTransaction } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { forbidden, notFound, validationFailed } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { isValidTimeZone } from '../calendars/schemas.js';
import {
  type CompiledRecurrence,
  compileRecurrence,
  OccurrenceLimitError,
  occurrencesBetween,
  RecurrenceError,
  type Series,
} from '../events/recurrence.js';
import { TASK_NOTES_MAX, TASK_TITLE_MAX } from '../tasks/schemas.js';
import type { TaskDraft, TaskService } from '../tasks/service.js';
import { createRoutineRepo, type RoutineValues } from './repo.js';
import {
  type CreateRoutineInput,
  localDate,
  localTime,
  ROUTINE_MAX_TEMPLATES,
  type Routine,
  type RoutineRun,
  type RunRoutineInput,
  type TaskTemplate,
  type TaskTemplateInput,
  TEMPLATE_MAX_CHECKLIST,
  type UpdateRoutineInput,
} from './schemas.js';

const DAY_LOOKBACK = 366;
/** Enough for a daily routine over the whole allowed date range. */
const MAX_SCAN = 100_000;
const TIME_PARTS = /(^|;)BY(HOUR|MINUTE|SECOND)=/i;

const invalid = (path: string, message: string) =>
  validationFailed(`Invalid routine: ${path}: ${message}`, [{ path, message }]);

interface Schedule {
  series: Series;
  compiled: CompiledRecurrence;
}

/**
 * The routine's recurrence as an all-day series starting at local midnight of
 * `startDate`: its occurrences are dates in the routine's time zone, expanded by the
 * events module's RFC 5545 code (RRULE, EXDATE, RDATE).
 */
function scheduleOf(startDate: string, timezone: string, recurrence: readonly string[]): Schedule {
  if (!isValidTimeZone(timezone))
    throw invalid('timezone', 'must be an IANA time zone such as Europe/Berlin');
  if (!localDate.safeParse(startDate).success) throw invalid('startDate', 'must be a date, yyyy-MM-dd');
  if (recurrence.length === 0) throw invalid('recurrence', 'needs an RRULE or an RDATE line');
  recurrence.forEach((line, index) => {
    if (/^\s*RRULE\s*:/i.test(line) && TIME_PARTS.test(line.slice(line.indexOf(':') + 1)))
      throw invalid(
        `recurrence.${index}`,
        'routines recur by date: BYHOUR, BYMINUTE and BYSECOND are not allowed',
      );
  });
  const start = DateTime.fromISO(startDate, { zone: timezone }).startOf('day');
  const series: Series = {
    startTime: start.toUTC().toISO()!,
    endTime: start.plus({ days: 1 }).toUTC().toISO()!,
    allDay: true,
    timezone,
  };
  try {
    const compiled = compileRecurrence(recurrence, series);
    if (!compiled) throw invalid('recurrence', 'needs an RRULE or an RDATE line');
    return { series, compiled };
  } catch (error) {
    if (error instanceof RecurrenceError) throw invalid(`recurrence.${error.index}`, error.message);
    throw error;
  }
}

const dayStart = (date: string, zone: string) => DateTime.fromISO(date, { zone }).startOf('day');

/** Occurrence dates (local) starting in [from, to), in order. */
function datesBetween({ series, compiled }: Schedule, from: DateTime, to: DateTime): string[] {
  if (to <= from) return [];
  try {
    return occurrencesBetween(series, compiled, from.toMillis(), to.toMillis(), MAX_SCAN)
      .map((o) => DateTime.fromISO(o.start, { zone: series.timezone }))
      .filter((start) => start >= from && start < to)
      .map((start) => start.toISODate()!);
  } catch (error) {
    if (error instanceof OccurrenceLimitError) return [];
    throw error;
  }
}

export function isOccurrence(schedule: Schedule, date: string): boolean {
  const from = dayStart(date, schedule.series.timezone);
  return datesBetween(schedule, from, from.plus({ days: 1 })).includes(date);
}

/** The latest occurrence on or before `date`; the last year first, the whole history only if needed. */
export function latestOccurrence(schedule: Schedule, date: string): string | null {
  const zone = schedule.series.timezone;
  const first = DateTime.fromISO(schedule.series.startTime, { zone });
  const end = dayStart(date, zone).plus({ days: 1 });
  const recentFrom = DateTime.max(first, end.minus({ days: DAY_LOOKBACK }));
  const recent = datesBetween(schedule, recentFrom, end);
  if (recent.length > 0) return recent[recent.length - 1]!;
  const older = datesBetween(schedule, first, recentFrom);
  return older[older.length - 1] ?? null;
}

function checkTemplate(template: TaskTemplateInput, path: string): TaskTemplate {
  const title = template.title.trim();
  if (title.length < 1 || title.length > TASK_TITLE_MAX)
    throw invalid(`${path}.title`, `must be 1..${TASK_TITLE_MAX} characters`);
  if (template.notes && template.notes.length > TASK_NOTES_MAX)
    throw invalid(`${path}.notes`, `must be at most ${TASK_NOTES_MAX} characters`);
  if (template.dueTime != null && !localTime.safeParse(template.dueTime).success)
    throw invalid(`${path}.dueTime`, 'must be HH:mm, 00:00..23:59');
  const checklist = (template.checklist ?? []).map((text) => text.trim()).filter((text) => text.length > 0);
  if (checklist.length > TEMPLATE_MAX_CHECKLIST)
    throw invalid(`${path}.checklist`, `at most ${TEMPLATE_MAX_CHECKLIST} items`);
  return {
    title,
    notes: template.notes ?? null,
    priority: template.priority ?? 'normal',
    dueTime: template.dueTime ?? null,
    labelIds: [...new Set(template.labelIds ?? [])],
    checklist,
  };
}

export type RoutineService = ReturnType<typeof createRoutineService>;

/**
 * Routines (`tasks_and_routines`): a named set of task templates with an RFC 5545
 * recurrence of dates. Running a routine for an occurrence date instantiates its
 * templates as tasks once; running it again answers the same tasks.
 *
 * Agent scope: not applicable. Routines and the tasks they make belong to no calendar
 * and no group, so `calendarIds`/`groupIds` do not narrow them: an agent sees and runs
 * its owner's routines like the owner.
 */
export function createRoutineService({ db, tasks }: { db: Db; tasks: TaskService }) {
  const repo = createRoutineRepo(db.kysely);

  async function requireOwned(actor: Actor, routineId: number): Promise<Routine> {
    const found = await repo.findOwned(actor.userId, routineId);
    if (!found) throw notFound('Routine');
    return found;
  }

  /** Checks templates, their labels (the actor's own, 404 otherwise) and their count. */
  async function checkTemplates(
    actor: Actor,
    templates: readonly TaskTemplateInput[],
  ): Promise<TaskTemplate[]> {
    if (templates.length < 1 || templates.length > ROUTINE_MAX_TEMPLATES)
      throw invalid('templates', `1..${ROUTINE_MAX_TEMPLATES} templates`);
    const checked = templates.map((template, i) => checkTemplate(template, `templates.${i}`));
    await tasks.requireOwnedLabels(
      actor,
      checked.flatMap((template) => template.labelIds),
    );
    return checked;
  }

  return {
    list(actor: Actor): Promise<Routine[]> {
      return repo.list(actor.userId);
    },

    get: requireOwned,

    async create(actor: Actor, input: CreateRoutineInput): Promise<Routine> {
      const timezone = input.timezone ?? 'UTC';
      scheduleOf(input.startDate, timezone, input.recurrence);
      const values: RoutineValues = {
        name: input.name.trim(),
        description: input.description ?? null,
        timezone,
        startDate: input.startDate,
        recurrence: [...input.recurrence],
        templates: await checkTemplates(actor, input.templates),
      };
      return repo.insert(actor.userId, values, nowIso());
    },

    /** Changes the given fields; the merged schedule must be valid. Past runs are kept. */
    async update(actor: Actor, routineId: number, input: UpdateRoutineInput): Promise<Routine> {
      const current = await requireOwned(actor, routineId);
      scheduleOf(
        input.startDate ?? current.startDate,
        input.timezone ?? current.timezone,
        input.recurrence ?? current.recurrence,
      );
      const values: Partial<RoutineValues> = {
        ...(input.name !== undefined ? { name: input.name.trim() } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
        ...(input.startDate !== undefined ? { startDate: input.startDate } : {}),
        ...(input.recurrence !== undefined ? { recurrence: [...input.recurrence] } : {}),
        ...(input.templates !== undefined ? { templates: await checkTemplates(actor, input.templates) } : {}),
      };
      return repo.update(routineId, values, nowIso());
    },

    /** Deletes the routine; tasks it made stay (their routineId becomes null). */
    async delete(actor: Actor, routineId: number): Promise<void> {
      await requireOwned(actor, routineId);
      await repo.delete(routineId);
    },

    /**
     * Instantiates the routine's templates for one occurrence date, once: the first
     * run creates the tasks (`created: true`), later or concurrent runs of the same
     * date answer the tasks made then (`created: false`). Without a date the run
     * targets the latest occurrence on or before today in the routine's time zone.
     * Labels deleted since the template was saved are left off the new tasks.
     */
    async run(actor: Actor, routineId: number, input: RunRoutineInput = {}): Promise<RoutineRun> {
      const routine = await requireOwned(actor, routineId);
      // Running one makes tasks: an agent needs tasks.create too, or a routine it wrote would make any task.
      if (actor.agent && !actor.agent.actions.has('tasks.create'))
        throw forbidden('Running a routine creates tasks: this agent may not tasks.create');
      const schedule = scheduleOf(routine.startDate, routine.timezone, routine.recurrence);
      let occurrenceDate: string;
      if (input.occurrenceDate !== undefined) {
        if (!localDate.safeParse(input.occurrenceDate).success)
          throw invalid('occurrenceDate', 'must be a date, yyyy-MM-dd');
        if (!isOccurrence(schedule, input.occurrenceDate))
          throw invalid('occurrenceDate', 'is not an occurrence of this routine');
        occurrenceDate = input.occurrenceDate;
      } else {
        const today = DateTime.now().setZone(routine.timezone).toISODate()!;
        const latest = latestOccurrence(schedule, today);
        if (!latest)
          throw invalid(
            'occurrenceDate',
            'the routine has no occurrence up to today; give an occurrenceDate',
          );
        occurrenceDate = latest;
      }

      const result = await inTransaction(db.kysely, async (trx) => {
        const claimed = await createRoutineRepo(trx).claimRun(routineId, occurrenceDate, nowIso());
        if (!claimed)
          return { created: false, tasks: await tasks.listForOccurrence(trx, routineId, occurrenceDate) };
        const labels = new Set(
          await tasks.ownedLabelIds(
            trx,
            actor.userId,
            routine.templates.flatMap((template) => template.labelIds),
          ),
        );
        const drafts: TaskDraft[] = routine.templates.map((template) => ({
          title: template.title,
          notes: template.notes,
          status: 'todo',
          priority: template.priority,
          dueAt: template.dueTime
            ? DateTime.fromISO(`${occurrenceDate}T${template.dueTime}`, { zone: routine.timezone })
                .toUTC()
                .toISO()!
            : null,
          labelIds: template.labelIds.filter((id) => labels.has(id)),
          checklist: template.checklist,
          routineId,
          occurrenceDate,
        }));
        return { created: true, tasks: await tasks.insertDrafts(trx, actor.userId, drafts) };
      });
      return { routineId, occurrenceDate, timezone: routine.timezone, ...result };
    },
  };
}
