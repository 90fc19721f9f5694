// Booking a picked slot through the host: `reservations_create` as a tools/call the host
// relays to the service (the App's callServerTool), and what its answer means for the person.
import type { OfferedSlot } from './slots.js';

/** The tool the picker books with (src/modules/reservations/tools.ts). */
export const BOOKING_TOOL = 'reservations_create';

export interface Customer {
  name: string;
  email: string;
}

/** The booking tool's arguments for `slot`: the customer's mails show times in `timeZone`. */
export const bookingArguments = (slot: OfferedSlot, customer: Customer, timeZone: string) => ({
  ...slot.target,
  startTime: slot.start,
  endTime: slot.end,
  customer: { ...customer, timeZone },
});

export type Outcome =
  | { kind: 'booked'; reference: string; status: string }
  | { kind: 'approval'; approveUrl: string }
  /** A refusal: its code when the service gave one (the picker words some), its message as the service put it. */
  | { kind: 'error'; code?: string; message: string };

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: unknown;
}

/** What the booking tool answered, for the person: booked, waiting for approval, or why not. */
export function outcomeOf(answer: ToolAnswer): Outcome {
  const content = (answer.structuredContent ?? {}) as Record<string, unknown>;
  if (answer.isError) {
    const error = content.error as { code?: unknown; message?: unknown } | undefined;
    return {
      kind: 'error',
      ...(typeof error?.code === 'string' ? { code: error.code } : {}),
      message: typeof error?.message === 'string' ? error.message : 'Booking failed',
    };
  }
  if (content.approvalRequired === true) {
    const approval = content.approval as { approveUrl: string };
    return { kind: 'approval', approveUrl: approval.approveUrl };
  }
  if (typeof content.reference === 'string')
    return { kind: 'booked', reference: content.reference, status: String(content.status) };
  return { kind: 'error', message: 'The service answered something the picker does not know' };
}
