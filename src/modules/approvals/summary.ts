import type { Actor } from '../../lib/actor.js';
import type { GatedCall } from '../../mcp/types.js';
import type { ApprovalDependencies } from './context.js';
import type { CallFacts } from './facts.js';
import { ACTION_TRAITS, type BookedTime, formatMoney, formatRange } from './policy.js';

/** Puts a gated call in words for its owner; reading what it names never fails the call. */
export function createSummariser(
  deps: () => ApprovalDependencies,
): (call: GatedCall, facts: CallFacts) => Promise<string> {
  /** "Room A" for a booked time: its resource, else its pool's type; null when neither can be read. */
  async function placeOf(actor: Actor, time: BookedTime): Promise<string | null> {
    const { resources, resourceTypes } = deps();
    try {
      if (time.resourceId !== null) return (await resources.get(actor, time.resourceId)).name;
      if (time.resourceTypeId !== null) return (await resourceTypes.get(actor, time.resourceTypeId)).name;
    } catch {
      // Named by id below: a summary never fails the call it describes.
    }
    return null;
  }

  async function zoneOf(actor: Actor): Promise<string> {
    try {
      return (await deps().organisations.requireTenant(actor)).timezone;
    } catch {
      return 'UTC';
    }
  }

  /** The call in words for its owner: "Book Room A, Tue 3 Mar 10:00-11:00 Europe/Berlin, 40.00 EUR". */
  async function summarise(call: GatedCall, facts: CallFacts): Promise<string> {
    const traits = ACTION_TRAITS[call.actionKey];
    const [first] = facts.times;
    if (traits && first) {
      const zone = await zoneOf(call.actor);
      const place =
        (await placeOf(call.actor, first)) ??
        (first.resourceId !== null
          ? `resource ${first.resourceId}`
          : `resource type ${first.resourceTypeId}`);
      const parts = [
        `${traits.verb} ${place}`,
        formatRange(first.startTime, first.endTime, zone) +
          (facts.times.length > 1 ? ` (and ${facts.times.length - 1} more)` : ''),
      ];
      if (facts.amount !== null && facts.currency) parts.push(formatMoney(facts.amount, facts.currency));
      const { reservationId, seriesId } = call.input;
      const subject =
        typeof reservationId === 'number'
          ? ` (reservation ${reservationId})`
          : typeof seriesId === 'number'
            ? ` (series ${seriesId})`
            : '';
      return `${parts.join(', ')}${subject}`;
    }
    // Any other tool: its title and its plain arguments.
    const plain = Object.entries(call.input)
      .filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value))
      .map(([key, value]) => `${key}: ${String(value).slice(0, 80)}`);
    return (plain.length > 0 ? `${call.title} (${plain.join(', ')})` : call.title).slice(0, 500);
  }

  return summarise;
}
