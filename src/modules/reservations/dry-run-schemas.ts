import { z } from 'zod';
import { alternatives, errorDetails } from '../../http/errors.js';
import { type Reservation, reservation } from './schemas.js';

/** The `dryRun` argument of the MCP tools that write a reservation. */
export const dryRunArgument = z
  .boolean()
  .optional()
  .describe(
    'true: write nothing and answer {wouldSucceed: true, reservation} (the would-be record, id null) or {wouldSucceed: false, error: {code, message, details?, alternatives}}',
  );

/** Why a dry run would fail: the refusal the write would answer, and what would fit instead. */
export const dryRunRefusal = z.object({
  code: z.string(),
  message: z.string(),
  details: errorDetails.optional(),
  alternatives: alternatives.optional(),
  conflicts: z
    .array(z.object({ startTime: z.string(), endTime: z.string(), alternatives }))
    .optional()
    .describe('A series: every occurrence that does not fit'),
});
export type DryRunRefusal = z.infer<typeof dryRunRefusal>;

/** The record a dry run would write: no id, and a new booking's reference not yet drawn. */
export const wouldBe = <T extends z.ZodObject>(record: T) =>
  record.extend({
    id: z.null().describe('Null: a dry run writes nothing'),
    reference: z.string().nullable().describe('Null for a new booking: its reference is drawn when written'),
  });

/** A dry run that would succeed, with the record it would write (`id` null: nothing was written). */
export const dryRunSuccess = <T extends z.ZodObject>(record: T) =>
  z.object({
    wouldSucceed: z.literal(true),
    reservation: wouldBe(record),
  });
export const dryRunFailure = z.object({ wouldSucceed: z.literal(false), error: dryRunRefusal });

/** What `?dryRun=true` (or the MCP `dryRun` argument) answers for a write of `record`. */
export const dryRunAnswer = <T extends z.ZodObject>(record: T) =>
  z.discriminatedUnion('wouldSucceed', [dryRunSuccess(record), dryRunFailure]);

/** The record a dry run would write. */
export type WouldBeReservation = Omit<Reservation, 'id' | 'reference'> & {
  id: null;
  reference: string | null;
};
export type DryRunAnswer<T> =
  | { wouldSucceed: true; reservation: T }
  | { wouldSucceed: false; error: DryRunRefusal };

/** What an MCP tool that may be dry-run answers: the record, or a dry run's verdict. */
export const reservationOrDryRun = z.union([reservation, dryRunSuccess(reservation), dryRunFailure]);

/** A series' dry run: the occurrences it would book (ids null), or the refusal with every misfit. */
export const seriesDryRunSuccess = z.object({
  wouldSucceed: z.literal(true),
  seriesId: z.null().describe('Null: a dry run writes nothing'),
  reservations: z.array(wouldBe(reservation)),
});
export const seriesDryRun = z.discriminatedUnion('wouldSucceed', [seriesDryRunSuccess, dryRunFailure]);
export type SeriesDryRun =
  | { wouldSucceed: true; seriesId: null; reservations: WouldBeReservation[] }
  | { wouldSucceed: false; error: DryRunRefusal };
