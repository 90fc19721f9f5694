import type { Executor } from '../../db/database.js';

/** A part of a collective reservation: the row keeping one more resource's time (migration 0067). */
export interface Part {
  id: number;
  /** Null on the reservation itself, else the reservation's id. */
  partOf: number | null;
  resourceId: number | null;
  resourceTypeId: number | null;
  startTime: string;
  endTime: string;
}

/** The parts of collective reservations. */
export function createPartRepo() {
  return {
    /** Reservation `id`'s row and its parts' rows, through `executor`. */
    rowsOf(executor: Executor, id: number): Promise<Part[]> {
      return executor
        .selectFrom('reservations')
        .select(['id', 'partOf', 'resourceId', 'resourceTypeId', 'startTime', 'endTime'])
        .where((eb) => eb.or([eb('id', '=', id), eb('partOf', '=', id)]))
        .execute();
    },

    /** Drops the parts of reservation `id` (a move writes them again where it takes the time). */
    async dropParts(executor: Executor, id: number): Promise<void> {
      await executor.deleteFrom('reservations').where('partOf', '=', id).execute();
    },
  };
}

export type PartRepo = ReturnType<typeof createPartRepo>;
