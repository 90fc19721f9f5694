import { z } from 'zod';
import { EVENT_TYPES, type EventType } from './event-types.js';

export { EVENT_TYPES, type EventType };

/**
 * One event as every reader gets it (feeds, webhooks, mail): `id` increases in the order
 * events are answered; `data` is the subject's full record as the API answers it.
 */
export interface OutboxEvent {
  id: string;
  type: EventType;
  occurredAt: string;
  organisationId: number | null;
  userId: number | null;
  data: unknown;
}

/** An event to write with a change (`append`): `data` is the subject's API record. */
export interface NewEvent {
  type: EventType;
  /** When the change happened; the caller's clock (defaults to now). */
  occurredAt?: string;
  organisationId: number | null;
  /** The person it concerns (or who acted), whose personal feed shows it. */
  userId: number | null;
  data: unknown;
}

/** An event position: the digits of an id the feed gave out. */
const position = z
  .string()
  .regex(/^\d{1,15}$/, 'is not an event id this feed gave out')
  .describe('id of the last event already read (nextCursor of the previous page)');

const types = z
  .string()
  .max(1000)
  .transform((value, ctx) => {
    const listed = value
      .split(',')
      .map((type) => type.trim())
      .filter((type) => type !== '');
    const unknown = listed.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
    if (unknown.length > 0)
      ctx.addIssue({ code: 'custom', message: `unknown event type(s): ${unknown.join(', ')}` });
    return [...new Set(listed)] as EventType[];
  })
  .describe(`comma-separated event types to answer (all when absent): ${EVENT_TYPES.join(', ')}`);

export const feedQuery = z.strictObject({
  after: position.optional(),
  types: types.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export type FeedQuery = z.infer<typeof feedQuery>;

export const outboxEvent = z.object({
  id: z.string().describe('increasing; pass the last one read as `after`'),
  type: z.enum(EVENT_TYPES),
  occurredAt: z.string(),
  organisationId: z.number().nullable(),
  userId: z.number().nullable(),
  data: z.unknown().describe("the subject's full record as the API answers it"),
});

export const feedPage = z.object({
  items: z.array(outboxEvent),
  nextCursor: z
    .string()
    .nullable()
    .describe('where to continue (`after`): the last id answered, or the `after` given when none was'),
});
export type FeedPage = z.infer<typeof feedPage>;
