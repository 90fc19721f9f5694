import { z } from 'zod';
import { positiveId } from '../../http/schemas.js';
import { customerRecord } from '../reservations/customer-schemas.js';
import { reservationBody } from '../reservations/schemas.js';

export const WAITLIST_STATUSES = ['waiting', 'offered', 'accepted', 'expired', 'left'] as const;
export const waitlistStatus = z
  .enum(WAITLIST_STATUSES)
  .describe(
    'waiting; offered (a held reservation keeps the freed time until offer.expiresAt); accepted (that hold was confirmed); expired (the offer lapsed or was let go); left',
  );
export type WaitlistStatus = z.infer<typeof waitlistStatus>;

/** Joining: the create body of a reservation, for a time that is full. */
export const joinWaitlistBody = reservationBody;
export type JoinWaitlistInput = z.infer<typeof joinWaitlistBody>;

export const waitlistEntry = z.object({
  id: z.number().int(),
  status: waitlistStatus,
  position: z
    .number()
    .int()
    .nullable()
    .describe('While waiting: 1 for the next in line for this time; null once no longer waiting'),
  resourceId: z.number().int().nullable().describe('The resource asked for; null for the type pool'),
  resourceIds: z
    .array(z.number().int())
    .describe("Every resource asked for: a collective booking's 2-5, else [resourceId] ([] for the pool)"),
  resourceTypeId: z.number().int(),
  startTime: z.string(),
  endTime: z.string(),
  customer: customerRecord,
  offer: z
    .object({
      reservationId: z
        .number()
        .int()
        .describe('The held reservation keeping the freed time: confirm it to accept'),
      expiresAt: z.string().nullable(),
    })
    .nullable(),
  createdAt: z.string(),
});
export type WaitlistEntry = z.infer<typeof waitlistEntry>;

export const listWaitlistQuery = z.strictObject({
  resourceTypeId: positiveId.optional(),
  status: waitlistStatus.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('At most this many, oldest first'),
});
export type ListWaitlistQuery = z.infer<typeof listWaitlistQuery>;

export const waitlistList = z.object({ items: z.array(waitlistEntry) });
