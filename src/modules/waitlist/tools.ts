import { z } from 'zod';
import { entityId } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import { joinWaitlistBody, waitlistEntry } from './schemas.js';
import type { WaitlistService } from './service.js';

const entryRef = { entryId: entityId };

/** MCP tools of the waitlist, in the owner's active organisation with the owner's role. */
export const waitlistTools = [
  defineTool({
    actionKey: 'reservations.waitlist.join',
    title: 'Join waitlist',
    description:
      'Puts your person on the waitlist of a full time (the reservations_create input, no recurrence) on a resource type with waitlistEnabled. Answers the entry, status waiting, with its position. Fails with SLOT_AVAILABLE when the time can be booked now (book it instead) and WAITLIST_NOT_ENABLED on a type without a waitlist. When capacity frees, the oldest fitting entry gets an offer: status offered, offer {reservationId, expiresAt} a held reservation; confirm it with reservations_confirm before expiresAt to accept, else the offer moves on.',
    catalogue: {
      description: 'Waits for a full time; freed time is offered as a timed hold.',
      risk: 'write',
      scopeKinds: [],
    },
    input: joinWaitlistBody,
    output: waitlistEntry,
    idempotent: true,
    run: (waitlist: WaitlistService, actor, input) => waitlist.join(actor, input, 'mcp'),
  }),
  defineTool({
    actionKey: 'reservations.waitlist.get',
    title: 'Read waitlist entry',
    description:
      'One waitlist entry you made (any of the organisation for OWNER, ADMIN, MANAGER): its status, position and offer.',
    catalogue: {
      description: 'One waitlist entry.',
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject(entryRef),
    output: waitlistEntry,
    run: (waitlist: WaitlistService, actor, { entryId }) => waitlist.get(actor, entryId),
  }),
  defineTool({
    actionKey: 'reservations.waitlist.leave',
    title: 'Leave waitlist',
    description:
      'Takes a waitlist entry off the list (status left); an offer not yet confirmed is released and goes to the next in line.',
    catalogue: {
      description: 'Leaves the waitlist; an open offer is let go.',
      risk: 'write',
      scopeKinds: [],
    },
    input: z.strictObject(entryRef),
    output: waitlistEntry,
    idempotent: true,
    run: (waitlist: WaitlistService, actor, { entryId }) => waitlist.leave(actor, entryId),
  }),
];
